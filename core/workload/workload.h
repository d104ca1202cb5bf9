// The simulated week of seed 000: open-loop arrivals hour by hour, customers with plans and API
// keys, query popularity per freshness class, agent bursts and the two overnight batch jobs.
//
// Hourly counts. Each day's total and busiest hour are seed 000's. Interactive traffic follows
// a daily cosine, w(h) = 1 + a cos(2π (h - peak) / 24), with `a` chosen so that the busiest hour
// holds exactly its published count: a = 24 * busiest / total - 1. On the two days whose busiest
// hour is at night (Tue 04:00, Thu 02:00, the batch jobs) the interactive part takes the mean
// shape of the other days (peak 15:00) and the batch job fills the rest of that hour:
//     batch = busiest - interactive(h),  interactive total = day total - batch.
// Hour counts are rounded by largest remainder, so every day's total is exact (the week holds
// 1,084,001 requests, seed 000's "1,084,000"). Within an hour, arrivals are that many uniform
// times (a Poisson process conditioned on its count): open loop, never waiting for answers.
//
// Queries. Each class has a catalog of repeated queries with Zipf(1) popularity and a share of
// one-off queries never seen again (seed 000: half of all queries are seen once a week). The
// catalog sizes and one-off shares are fitted so that the cache, with the class TTLs, yields the
// class hit rates of seed 000's table; see scenarios/gateway/week-v4-september.json.
//
// Agent bursts. A share of requests arrive as bursts of 2-40 identical queries from one
// customer within 20 ms (an agent framework retrying, or copies of one agent in parallel).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gateway/gateway_types.h"
#include "knobs/knob.h"
#include "sim/cdf_table.h"
#include "base/rng.h"
#include "base/time.h"

namespace taillab::gateway {

enum class Plan : std::uint8_t { Free, Pro, Enterprise };
constexpr std::array<std::string_view, 4> kLanguages{"en", "de", "fr", "ja"};
constexpr std::array<std::string_view, 3> kPlanNames{"free", "pro", "enterprise"};

struct Customer {
    std::string name;
    Plan plan = Plan::Free;
    Region home = Region::EU;
    bool pins = false;     // sends X-Region: stays in its home region
    std::uint8_t lang = 0; // index into kLanguages
    double weight = 1;     // share of interactive traffic
};

struct RequestSpec {
    Time at{};
    std::uint32_t customer = 0;  // index; kUnknownCustomer for an unknown API key
    QueryClass query_class = QueryClass::Evergreen;
    std::uint8_t endpoint = 0;  // 0 /search/lite, 1 /search/fast
    std::uint8_t max_results = 10;
    bool batch = false;
    bool zero_results_allowed = false;  // site:/exact-match
    bool probe = false;
    std::uint64_t query = 0;  // hash of the normalized query text
};
constexpr std::uint32_t kUnknownCustomer = 0xffffffffu;

struct ClassMix {
    double share;         // of requests
    int catalog;          // repeated queries in the class's catalog
    double one_off;       // share of the class's requests that are one-off queries
};

class Workload {
public:
    Workload(const Params& params, std::uint64_t seed);

    int hours() const { return static_cast<int>(hourCounts_.size()); }
    Time end() const { return fromSeconds(3600.0 * hours()); }
    // The requests arriving in hour `h` of the run, in time order (appends to `out`).
    void generateHour(int h, std::vector<RequestSpec>& out);
    const std::vector<Customer>& customers() const { return customers_; }
    std::uint32_t batchCustomer() const { return batchCustomer_; }
    // Interactive and batch counts per hour of the run.
    const std::vector<std::int64_t>& hourCounts() const { return hourCounts_; }
    const std::vector<std::int64_t>& batchCounts() const { return batchCounts_; }
    static const std::array<ClassMix, kClasses>& classMix();

    // Seed 000's week, hour by hour (168 interactive and 168 batch counts, Mon 00:00 first).
    static void weekHours(std::vector<std::int64_t>& interactive, std::vector<std::int64_t>& batch);

private:
    RequestSpec draw(Time at, bool batch);
    std::uint64_t drawQuery(QueryClass c, std::uint32_t customer);

    Rng rng_;
    std::vector<RequestSpec> sortScratch_;
    std::vector<Customer> customers_;
    CdfTable customerCdf_;
    std::uint32_t batchCustomer_ = 0;
    std::vector<std::int64_t> hourCounts_, batchCounts_;
    std::array<CdfTable, kClasses> zipfCdf_;
    std::array<double, kClasses> classCdf_{};
    double burstStart_ = 0;
    double unknownKeyRate_ = 0;
    std::uint64_t oneOffCounter_ = 0;
};

}  // namespace taillab::gateway
