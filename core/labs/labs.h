// Factories of the built-in labs (one file each under core/labs/).
#pragma once

#include <memory>

#include "labs/lab.h"

namespace taillab {

std::unique_ptr<Lab> makeFanoutLab();
std::unique_ptr<Lab> makeHedgeIdleLab();
std::unique_ptr<Lab> makeHedgeLoadedLab();
std::unique_ptr<Lab> makePowerOfDLab();
std::unique_ptr<Lab> makeCoordinatedOmissionLab();
std::unique_ptr<Lab> makeAveragingPercentilesLab();
std::unique_ptr<Lab> makeRegionRouterLab();

}  // namespace taillab
