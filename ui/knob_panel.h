// The selected scenario's knobs: one labelled KnobEditor per KnobSpec (the lab's main knob in
// bold, advanced knobs behind a collapsible "More" section), the seed, and a reset button.
// Edits are debounced: edited() fires once, kDebounceMs after the last change.
#pragma once

#include <QWidget>
#include <vector>

#include "scenario/scenario.h"

class QGridLayout;
class QVBoxLayout;
class QSpinBox;
class QTimer;
class QToolButton;
class QLabel;

namespace taillab::ui {

class KnobEditor;

class KnobPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kDebounceMs = 25;

    explicit KnobPanel(QWidget* parent = nullptr);

    // Rebuilds the editors for `scenario`'s knobs, set to its values.
    void setScenario(const Scenario& scenario, const std::string& mainKnob);
    // The scenario with the edited knob values and seed.
    Scenario editedScenario() const;
    bool isEdited() const;
    KnobEditor* editor(const std::string& key) const;
    const std::string& mainKnob() const { return mainKnob_; }
    QSpinBox* seedBox() const { return seed_; }

  public slots:
    void resetToScenario();

  signals:
    void edited();

  private:
    void addKnobRow(QVBoxLayout* column, const KnobSpec& spec, double value);
    void onEdit();

    Scenario scenario_;
    std::string mainKnob_;
    std::vector<KnobEditor*> editors_;
    QVBoxLayout* formHost_ = nullptr;
    QWidget* form_ = nullptr;  // rebuilt per scenario
    QToolButton* moreButton_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QLabel* heading_ = nullptr;
    QTimer* debounce_ = nullptr;
};

}  // namespace taillab::ui
