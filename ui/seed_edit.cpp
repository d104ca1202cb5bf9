#include "seed_edit.h"

#include <QKeyEvent>
#include <QValidator>
#include <limits>
#include <optional>

namespace taillab::ui {
namespace {

// Digits only, and no more than a std::uint64_t holds.
std::optional<std::uint64_t> parseSeed(const QString& text) {
    if (text.isEmpty()) return std::nullopt;
    for (const QChar c : text)
        if (c < '0' || c > '9') return std::nullopt;
    bool ok = false;
    const qulonglong v = text.toULongLong(&ok);
    if (!ok) return std::nullopt;
    return static_cast<std::uint64_t>(v);
}

class SeedValidator : public QValidator {
  public:
    using QValidator::QValidator;
    State validate(QString& input, int&) const override {
        if (input.isEmpty()) return Intermediate;
        return parseSeed(input) ? Acceptable : Invalid;
    }
};

}  // namespace

SeedEdit::SeedEdit(QWidget* parent) : QLineEdit(parent) {
    setValidator(new SeedValidator(this));
    setAlignment(Qt::AlignRight);
    setText(QString::number(value_));
    connect(this, &QLineEdit::editingFinished, this, &SeedEdit::commit);
}

void SeedEdit::setValue(std::uint64_t value) {
    const bool changed = value != value_;
    value_ = value;
    setText(QString::number(value_));
    if (changed) emit valueChanged(value_);
}

void SeedEdit::commit() {
    if (const std::optional<std::uint64_t> v = parseSeed(text()))
        setValue(*v);
    else
        setText(QString::number(value_));
}

void SeedEdit::keyPressEvent(QKeyEvent* event) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const bool step = event->key() == Qt::Key_Up || event->key() == Qt::Key_Down;
    if (step && !isReadOnly()) commit();  // a step starts from what was typed
    if (event->key() == Qt::Key_Up && !isReadOnly()) {
        setValue(value_ == kMax ? kMax : value_ + 1);
        return;
    }
    if (event->key() == Qt::Key_Down && !isReadOnly()) {
        setValue(value_ == 0 ? 0 : value_ - 1);
        return;
    }
    QLineEdit::keyPressEvent(event);
}

void SeedEdit::focusOutEvent(QFocusEvent* event) {
    QLineEdit::focusOutEvent(event);  // commits an acceptable entry (editingFinished)
    if (!hasAcceptableInput()) setText(QString::number(value_));
}

}  // namespace taillab::ui
