#include "gateway/run_hour_spin.h"

#include <QLineEdit>

#include "scenario/timeline.h"

namespace taillab::ui {

void RunHourSpin::setStartDay(int day) {
    startDay_ = day;
    lineEdit()->setText(textFromValue(value()));  // the same hour on the new clock
}

QString RunHourSpin::textFromValue(int hours) const {
    return QString::fromStdString(formatRunTime(hours * 3600.0, startDay_));
}

int RunHourSpin::valueFromText(const QString& text) const { return parse(text).value_or(value()); }

QValidator::State RunHourSpin::validate(QString& text, int&) const {
    return parse(text) ? QValidator::Acceptable : QValidator::Intermediate;
}

std::optional<int> RunHourSpin::parse(const QString& text) const {
    const QString t = text.trimmed();
    bool number = false;
    const int h = t.toInt(&number);
    if (number) return h >= minimum() && h <= maximum() ? std::optional(h) : std::nullopt;
    for (int v = minimum(); v <= maximum(); ++v)
        if (textFromValue(v).compare(t, Qt::CaseInsensitive) == 0) return v;
    return std::nullopt;
}

}  // namespace taillab::ui
