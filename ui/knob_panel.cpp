#include "knob_panel.h"

#include <QGridLayout>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>

#include "knob_editor.h"
#include "seed_edit.h"

namespace taillab::ui {
namespace {

// A column of knobs: each knob is its label above its editor.
QVBoxLayout* makeColumn(QWidget* parent) {
    auto* column = new QVBoxLayout(parent);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(10);
    return column;
}

QGridLayout* makeGrid(QWidget* parent) {
    auto* grid = new QGridLayout(parent);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(6);
    grid->setColumnStretch(1, 1);
    return grid;
}

// One knob edit. Consecutive edits of the same knob less than kMergeMs apart (a slider drag,
// a spin box held down) merge into one command.
class KnobEdit : public QUndoCommand {
  public:
    static constexpr int kMergeMs = 800;
    KnobEdit(KnobPanel* panel, std::string key, QString label, double before, double after,
             bool mergeable = true)
        : panel_(panel), key_(std::move(key)), before_(before), after_(after),
          at_(std::chrono::steady_clock::now()), mergeable_(mergeable) {
        setText(label);
    }
    // -1 (never merged) for a reset, and for an edit once it has been undone or redone.
    int id() const override { return mergeable_ ? 1 : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const KnobEdit*>(other);
        if (next->key_ != key_ || next->at_ - at_ > std::chrono::milliseconds(kMergeMs))
            return false;
        after_ = next->after_;
        at_ = next->at_;
        return true;
    }
    void undo() override {
        mergeable_ = false;
        panel_->applyValue(key_, before_);
    }
    void redo() override {
        if (first_) {  // the edit has happened already: pushing must not apply it again
            first_ = false;
            return;
        }
        mergeable_ = false;
        panel_->applyValue(key_, after_);
    }

  private:
    KnobPanel* panel_;
    std::string key_;
    double before_, after_;
    std::chrono::steady_clock::time_point at_;
    bool mergeable_;
    bool first_ = true;
};

}  // namespace

KnobPanel::KnobPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("knobPanel");
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);

    auto* content = new QWidget(scroll);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(8);
    heading_ = new QLabel(tr("Parameters"), content);
    QFont headingFont = heading_->font();
    headingFont.setBold(true);
    heading_->setFont(headingFont);
    layout->addWidget(heading_);

    formHost_ = new QVBoxLayout;
    formHost_->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(formHost_);

    auto* seedRow = new QWidget(content);
    auto* seedGrid = makeGrid(seedRow);
    auto* seedLabel = new QLabel(tr("Seed"), seedRow);
    seed_ = new SeedEdit(seedRow);
    seed_->setObjectName("seedBox");
    seed_->setToolTip(tr("Seed of the run's random streams: the same seed gives the same result"));
    auto* reset = new QPushButton(tr("Reset"), seedRow);
    reset->setObjectName("knobResetButton");
    reset->setToolTip(tr("Back to the scenario's values"));
    seedGrid->addWidget(seedLabel, 0, 0);
    seedGrid->addWidget(seed_, 0, 1);
    seedGrid->addWidget(reset, 0, 2);
    layout->addWidget(seedRow);
    layout->addStretch(1);
    scroll->setWidget(content);

    undo_ = new QUndoStack(this);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, [this] {
        if (!trailing_) return;
        trailing_ = false;
        emit edited();
    });
    connect(seed_, &SeedEdit::valueChanged, this, &KnobPanel::onEdit);
    connect(reset, &QPushButton::clicked, this, &KnobPanel::resetToScenario);
}

void KnobPanel::setScenario(const Scenario& scenario, const std::string& mainKnob) {
    debounce_->stop();
    trailing_ = false;
    scenario_ = scenario;
    inForce_ = scenario.params;
    setBy_.clear();
    mainKnob_ = mainKnob;
    editors_.clear();
    rows_.clear();
    undo_->clear();
    const bool moreOpen = moreButton_ && moreButton_->isChecked();
    delete form_;
    form_ = new QWidget(this);
    auto* layout = new QVBoxLayout(form_);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    auto* basic = new QWidget(form_);
    QVBoxLayout* basicColumn = makeColumn(basic);
    layout->addWidget(basic);

    moreButton_ = new QToolButton(form_);
    moreButton_->setObjectName("knobMoreButton");
    moreButton_->setText(tr("More"));
    moreButton_->setToolTip(tr("Advanced parameters"));
    moreButton_->setCheckable(true);
    moreButton_->setChecked(moreOpen);
    moreButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    moreButton_->setArrowType(moreOpen ? Qt::DownArrow : Qt::RightArrow);
    moreButton_->setAutoRaise(true);
    layout->addWidget(moreButton_);
    auto* advanced = new QWidget(form_);
    QVBoxLayout* advancedColumn = makeColumn(advanced);
    layout->addWidget(advanced);
    connect(moreButton_, &QToolButton::toggled, advanced,
            [button = moreButton_, advanced](bool open) {
                advanced->setVisible(open);
                button->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
            });

    bool anyAdvanced = false;
    for (const auto& spec : scenario.params.specs()) {
        anyAdvanced = anyAdvanced || spec.advanced;
        addKnobRow(spec.advanced ? advancedColumn : basicColumn, spec,
                   scenario.params.real(spec.key));
    }
    moreButton_->setVisible(anyAdvanced);
    advanced->setVisible(anyAdvanced && moreOpen);
    formHost_->addWidget(form_);
    const QSignalBlocker block(seed_);
    seed_->setValue(scenario.seed);
    refreshMarks();
}

void KnobPanel::addKnobRow(QVBoxLayout* column, const KnobSpec& spec, double value) {
    auto* block = new QWidget(column->parentWidget());
    auto* layout = new QVBoxLayout(block);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* editor = new KnobEditor(spec, value, block);
    auto* reset = new QToolButton(block);
    reset->setObjectName("knob_reset_" + QString::fromStdString(spec.key));
    reset->setIcon(style()->standardIcon(QStyle::SP_DialogResetButton));
    reset->setAutoRaise(true);
    reset->setVisible(false);
    QLabel* label = nullptr;
    auto* header = new QHBoxLayout;
    header->setContentsMargins(0, 0, 0, 0);
    if (spec.kind != KnobKind::Boolean) {  // a check box carries its own label
        label = new QLabel(QString::fromStdString(spec.label), block);
        label->setToolTip(QString::fromStdString(spec.help));
        label->setBuddy(editor);
        if (spec.key == mainKnob_) {
            QFont f = label->font();
            f.setBold(true);
            label->setFont(f);
        }
        header->addWidget(label, 1);
        header->addWidget(reset);
        layout->addLayout(header);
        layout->addWidget(editor);
    } else {
        header->addWidget(editor, 1);
        header->addWidget(reset);
        layout->addLayout(header);
    }
    column->addWidget(block);
    editors_.push_back(editor);
    rows_.push_back(Row{editor, label, reset, value});
    const std::string key = spec.key;
    connect(editor, &KnobEditor::valueChanged, this, [this, key](double v) {
        if (Row* r = row(key)) onKnobEdited(*r, v);
    });
    connect(reset, &QToolButton::clicked, this, [this, key] {
        Row* r = row(key);
        if (!r) return;
        const double scenarioValue = inForce_.real(key);
        const double before = r->editor->value();
        applyValue(key, scenarioValue);
        undo_->push(new KnobEdit(this, key,
                                 tr("Reset %1").arg(QString::fromStdString(r->editor->spec().label)),
                                 before, scenarioValue, false));
    });
}

KnobPanel::Row* KnobPanel::row(const std::string& key) {
    for (Row& r : rows_)
        if (r.editor->spec().key == key) return &r;
    return nullptr;
}

QToolButton* KnobPanel::resetButton(const std::string& key) const {
    for (const Row& r : rows_)
        if (r.editor->spec().key == key) return r.reset;
    return nullptr;
}

void KnobPanel::onKnobEdited(Row& r, double value) {
    const double before = r.committed;
    r.committed = value;
    undo_->push(new KnobEdit(this, r.editor->spec().key,
                             tr("Change %1").arg(QString::fromStdString(r.editor->spec().label)),
                             before, value));
    refreshMarks();
    onEdit();
}

void KnobPanel::applyValue(const std::string& key, double value) {
    Row* r = row(key);
    if (!r) return;
    r->editor->setValue(value);
    r->committed = r->editor->value();
    refreshMarks();
    onEdit();
}

void KnobPanel::refreshMarks() {
    Params current = scenario_.params;
    for (const Row& r : rows_) current.set(r.editor->spec().key, r.editor->value());
    for (Row& r : rows_) {
        const KnobSpec& spec = r.editor->spec();
        const double inForce = inForce_.real(spec.key);
        const bool modified = r.editor->value() != inForce;
        const auto setBy = setBy_.find(spec.key);
        const QString setByNote = setBy == setBy_.end() ? QString() : setBy->second;
        std::string why;
        const bool used = current.used(spec.key, &why);
        // The whole row (label, editor, reset) is greyed while the knob does nothing, and every
        // tooltip in it says why.
        r.editor->parentWidget()->setEnabled(used);
        const QString note = used ? QString() : QString::fromStdString(why);
        if (r.editor->property("note").toString() != note) {
            r.editor->setProperty("note", note);
            r.editor->setNote(note);
        }
        // A value the scenario's own timeline set is no edit: no dot, its label in italics and
        // its tooltip saying when.
        QString tip = QString::fromStdString(spec.help);
        if (!note.isEmpty()) tip += "\n(" + note + ")";
        if (!setByNote.isEmpty()) tip += "\n" + setByNote;
        if (r.label) {
            if (r.label->toolTip() != tip) r.label->setToolTip(tip);
            QFont f = r.label->font();
            if (f.italic() != !setByNote.isEmpty()) {
                f.setItalic(!setByNote.isEmpty());
                r.label->setFont(f);
            }
        } else if (r.editor->property("setBy").toString() != setByNote) {
            r.editor->setProperty("setBy", setByNote);  // a check box: its own tooltip says it
            r.editor->setToolTip(tip);
        }
        const QString resetTip =
            setByNote.isEmpty()
                ? tr("Back to the scenario's %1").arg(knobValueText(spec, inForce))
                : tr("Back to %1 (%2)").arg(knobValueText(spec, inForce), setByNote);
        if (r.reset->toolTip() != resetTip) r.reset->setToolTip(resetTip);
        if (r.editor->property("modified").toBool() == modified && !r.reset->isHidden() == modified)
            continue;
        r.editor->setProperty("modified", modified);
        r.reset->setVisible(modified);
        if (r.label)
            r.label->setText((modified ? QStringLiteral("\u25CF ") : QString()) +
                             QString::fromStdString(spec.label));
    }
}

void KnobPanel::setInForce(const Params& params, const std::map<std::string, QString>& setBy) {
    if (params == inForce_ && setBy == setBy_) return;
    inForce_ = params;
    setBy_ = setBy;
    refreshMarks();
}

void KnobPanel::onEdit() {
    // Leading edge: the first edit after a quiet spell runs at once, so a click or a key reads
    // as instant; edits that follow within kDebounceMs (a drag) merge into one run after the
    // last of them.
    if (!debounce_->isActive()) {
        trailing_ = false;
        debounce_->start();
        emit edited();
        return;
    }
    trailing_ = true;
    debounce_->start();
}

Scenario KnobPanel::editedScenario() const {
    Scenario s = scenario_;
    for (const KnobEditor* e : editors_) s.params.set(e->spec().key, e->value());
    s.seed = seed_->value();
    return s;
}

bool KnobPanel::isEdited() const {
    const Scenario s = editedScenario();
    return !(s.params == inForce_) || s.seed != scenario_.seed;
}

KnobEditor* KnobPanel::editor(const std::string& key) const {
    for (KnobEditor* e : editors_)
        if (e->spec().key == key) return e;
    return nullptr;
}

void KnobPanel::showValues(const Params& params) {
    for (Row& r : rows_) {
        r.editor->setValue(params.real(r.editor->spec().key));
        r.committed = r.editor->value();
    }
    refreshMarks();
}

void KnobPanel::resetToScenario() {
    // One undoable step: each knob that differs goes back, as its own reset button would.
    const bool anyDiffers = std::any_of(rows_.begin(), rows_.end(), [&](const Row& r) {
        return r.editor->value() != inForce_.real(r.editor->spec().key);
    });
    if (!anyDiffers) {
        const QSignalBlocker block(seed_);
        seed_->setValue(scenario_.seed);
        onEdit();
        return;
    }
    undo_->beginMacro(tr("Reset knobs"));
    for (Row& r : rows_) {
        const std::string& key = r.editor->spec().key;
        const double before = r.editor->value();
        r.editor->setValue(inForce_.real(key));
        r.committed = r.editor->value();
        if (r.committed != before)
            undo_->push(new KnobEdit(this, key, tr("Reset knobs"), before, r.committed, false));
    }
    undo_->endMacro();
    refreshMarks();
    const QSignalBlocker block(seed_);
    seed_->setValue(scenario_.seed);
    onEdit();
}

}  // namespace taillab::ui
