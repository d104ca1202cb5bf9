// The loads a queueing lab sweeps (0.1 to 0.9, plus the chosen load when it is off that grid) and
// the order it runs them in: the chosen load first, so the point being tuned (its distributions,
// its row of the charts) is drawn after one load's work instead of after the whole sweep. Each
// load draws from its own RNG streams, so the order changes nothing in the result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace taillab {

inline bool sameLoad(double a, double b) { return std::abs(a - b) < 1e-9; }

// A load's part of figure, check and random-stream names, in hundredths: "0_9" for 0.9, "0_07"
// for 0.07, "1_0" for 1. Two loads a hundredth or more apart get different keys.
inline std::string loadKey(double load) {
    const long hundredths = std::lround(load * 100);
    const long part = hundredths % 100;
    std::string key = std::to_string(hundredths / 100) + (part < 10 ? "_0" : "_") + std::to_string(part);
    if (key.back() == '0') key.pop_back();  // "0_7", not "0_70"
    return key;
}

// A load as check names and titles show it, in percent as the knob panel and the figures table
// show a load, to the key's hundredth: "90 %", "7 %", "100 %".
inline std::string loadLabel(double load) {
    return std::to_string(std::lround(load * 100)) + " %";
}

// 0.1, 0.2, ..., 0.9 with `chosen` added in order when it is not one of them.
inline std::vector<double> sweepLoads(double chosen) {
    std::vector<double> loads;
    for (int i = 1; i <= 9; ++i) loads.push_back(i / 10.0);
    if (std::none_of(loads.begin(), loads.end(), [&](double l) { return sameLoad(l, chosen); }))
        loads.push_back(chosen);
    std::sort(loads.begin(), loads.end());
    return loads;
}

// Indices into `loads`: the chosen load's first, then the others from the lowest load up.
inline std::vector<std::size_t> chosenFirst(const std::vector<double>& loads, double chosen) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < loads.size(); ++i)
        if (sameLoad(loads[i], chosen)) order.push_back(i);
    for (std::size_t i = 0; i < loads.size(); ++i)
        if (!sameLoad(loads[i], chosen)) order.push_back(i);
    return order;
}

}  // namespace taillab
