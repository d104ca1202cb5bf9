#include "knob_panel.h"

#include <QGridLayout>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <climits>

#include "knob_editor.h"

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
    seed_ = new QSpinBox(seedRow);
    seed_->setObjectName("seedBox");
    seed_->setRange(0, INT_MAX);
    seed_->setKeyboardTracking(false);
    takeWheelOnlyWithFocus(seed_);
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

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &KnobPanel::edited);
    connect(seed_, &QSpinBox::valueChanged, this, &KnobPanel::onEdit);
    connect(reset, &QPushButton::clicked, this, &KnobPanel::resetToScenario);
}

void KnobPanel::setScenario(const Scenario& scenario, const std::string& mainKnob) {
    debounce_->stop();
    scenario_ = scenario;
    mainKnob_ = mainKnob;
    editors_.clear();
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
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(scenario.seed, INT_MAX)));
}

void KnobPanel::addKnobRow(QVBoxLayout* column, const KnobSpec& spec, double value) {
    auto* block = new QWidget(column->parentWidget());
    auto* layout = new QVBoxLayout(block);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* editor = new KnobEditor(spec, value, block);
    if (spec.kind != KnobKind::Boolean) {  // a check box carries its own label
        auto* label = new QLabel(QString::fromStdString(spec.label), block);
        label->setToolTip(QString::fromStdString(spec.help));
        label->setBuddy(editor);
        if (spec.key == mainKnob_) {
            QFont f = label->font();
            f.setBold(true);
            label->setFont(f);
        }
        layout->addWidget(label);
    }
    layout->addWidget(editor);
    column->addWidget(block);
    connect(editor, &KnobEditor::valueChanged, this, &KnobPanel::onEdit);
    editors_.push_back(editor);
}

void KnobPanel::onEdit() { debounce_->start(); }

Scenario KnobPanel::editedScenario() const {
    Scenario s = scenario_;
    for (const KnobEditor* e : editors_) s.params.set(e->spec().key, e->value());
    s.seed = static_cast<std::uint64_t>(seed_->value());
    return s;
}

bool KnobPanel::isEdited() const {
    const Scenario s = editedScenario();
    return !(s.params == scenario_.params) || s.seed != scenario_.seed;
}

KnobEditor* KnobPanel::editor(const std::string& key) const {
    for (KnobEditor* e : editors_)
        if (e->spec().key == key) return e;
    return nullptr;
}

void KnobPanel::resetToScenario() {
    for (KnobEditor* e : editors_) e->setValue(scenario_.params.real(e->spec().key));
    const QSignalBlocker block(seed_);
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(scenario_.seed, INT_MAX)));
    debounce_->start();
}

}  // namespace taillab::ui
