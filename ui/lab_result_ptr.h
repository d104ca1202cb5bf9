// The snapshot type that crosses from the run worker to the UI: immutable, shared, never locked.
#pragma once

#include <QMetaType>
#include <memory>

#include "labs/lab_result.h"

namespace taillab::ui {

using LabResultPtr = std::shared_ptr<const LabResult>;

// Registers LabResultPtr for queued connections; call once before the first run (idempotent).
void registerUiMetaTypes();

}  // namespace taillab::ui

Q_DECLARE_METATYPE(taillab::ui::LabResultPtr)
