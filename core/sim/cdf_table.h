// CdfTable: inverse-transform sampling from a discrete distribution given as its cumulative
// distribution, in expected constant time (the guide-table method of Chen and Asau). index(u)
// returns exactly what std::lower_bound(cdf, u) would: the first index whose cumulative weight is
// at least u (cdf.size() when u is above the last entry), so it can replace a binary search
// without changing a single draw. A guide of one entry per category points at where the search
// for each 1/n-wide band of u starts; the scan from there is short on average (at most the
// number of categories whose cumulative values fall in the band, plus one).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace taillab {

class CdfTable {
public:
    CdfTable() = default;
    explicit CdfTable(std::vector<double> cdf) : cdf_(std::move(cdf)) {
        const std::size_t bands = std::max<std::size_t>(1, cdf_.size());
        guide_.resize(bands);
        for (std::size_t k = 0; k < bands; ++k) {
            guide_[k] = static_cast<std::uint32_t>(
                std::lower_bound(cdf_.begin(), cdf_.end(), lowerEdge(k, bands)) - cdf_.begin());
        }
    }

    std::size_t index(double u) const {
        const std::size_t bands = guide_.size();
        // The band whose lower edge is at most u, with the edge computed exactly as when the
        // guide was built, so the scan never starts past the answer.
        auto k = static_cast<std::size_t>(std::max(0.0, u) * static_cast<double>(bands));
        if (k >= bands) k = bands - 1;
        while (k > 0 && lowerEdge(k, bands) > u) --k;
        std::size_t i = guide_[k];
        while (i < cdf_.size() && cdf_[i] < u) ++i;
        return i;
    }
    const std::vector<double>& cdf() const { return cdf_; }
    std::size_t size() const { return cdf_.size(); }

private:
    static double lowerEdge(std::size_t k, std::size_t bands) {
        return static_cast<double>(k) / static_cast<double>(bands);
    }
    std::vector<double> cdf_;
    std::vector<std::uint32_t> guide_;
};

}  // namespace taillab
