// The selected scenario's knobs: one labelled KnobEditor per KnobSpec (the lab's main knob in
// bold, advanced knobs behind a collapsible "More" section), the seed, and a reset button.
// Edits are debounced on both edges: the first edit after a quiet spell fires edited() at once,
// and edits within kDebounceMs of one another fire it once more, kDebounceMs after the last.
//
// A knob whose value differs from the scenario's is marked ("●" before its label, the property
// "modified" set) and shows a reset button that puts that knob alone back. Every knob edit is
// a command on undoStack() (one drag of a slider is one command), so Ctrl+Z and Ctrl+Shift+Z
// step through an afternoon of tuning; loading a scenario clears the stack.
#pragma once

#include <QWidget>
#include <map>
#include <vector>

#include "scenario/scenario.h"

class QGridLayout;
class QVBoxLayout;
class QTimer;
class QToolButton;
class QLabel;
class QUndoStack;

namespace taillab::ui {

class KnobEditor;
class SeedEdit;

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
    SeedEdit* seedBox() const { return seed_; }
    QUndoStack* undoStack() const { return undo_; }
    // The reset button of one knob (shown while the knob differs from the scenario).
    QToolButton* resetButton(const std::string& key) const;
    // Sets one knob as an edit would, without recording it (undo and redo use this).
    void applyValue(const std::string& key, double value);
    // Shows `params` (a run's knobs as its timeline changed them): neither an edit nor undoable.
    void showValues(const Params& params);
    // The scenario's own values at this moment of its run: its knobs with the changes its
    // timeline has made by now, and for each knob the timeline set, what to say about it ("set
    // by the timeline at Tue 07:00"). A knob at its value here is no edit (no dot, no reset
    // button; its label in italics says why); the reset buttons go back to it. setScenario
    // starts from the scenario's values, with no note.
    void setInForce(const Params& params, const std::map<std::string, QString>& setBy);
    const Params& inForce() const { return inForce_; }

  public slots:
    void resetToScenario();

  signals:
    void edited();

  private:
    struct Row {
        KnobEditor* editor;
        QLabel* label;  // null for a check box, which carries its own
        QToolButton* reset;
        double committed;  // the value before the edit in progress, for its undo command
    };
    void addKnobRow(QVBoxLayout* column, const KnobSpec& spec, double value);
    void onEdit();
    void onKnobEdited(Row& row, double value);
    void refreshMarks();
    Row* row(const std::string& key);

    Scenario scenario_;
    Params inForce_;                          // see setInForce
    std::map<std::string, QString> setBy_;    // knob -> what set it (the timeline, when)
    std::string mainKnob_;
    std::vector<KnobEditor*> editors_;
    std::vector<Row> rows_;
    QUndoStack* undo_ = nullptr;
    QVBoxLayout* formHost_ = nullptr;
    QWidget* form_ = nullptr;  // rebuilt per scenario
    QToolButton* moreButton_ = nullptr;
    SeedEdit* seed_ = nullptr;
    QLabel* heading_ = nullptr;
    QTimer* debounce_ = nullptr;
    bool trailing_ = false;  // an edit arrived while debounce_ ran: fire edited() when it ends
};

}  // namespace taillab::ui
