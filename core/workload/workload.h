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
//
// Query text. Every request carries real text that the gateway's compiler normalizes and
// classifies: each class's queries are written so that the compiler's rules put them in that class
// (navigational "kalomi.com", evergreen "kalomi pefi history", product "kalomi price", long-tail
// "how does kalomi work with pefi in practice", news "kalomi latest"), with words spelled from a
// query's rank in syllables (no digits, so no year or version triggers). 2% of catalog queries
// carry a site: operator, where zero results is a legitimate answer. One-off queries spell a
// counter instead of a rank. Texts are already in normalized form, as most agents send them.
//
// Ids. Each arrival has a trace id (its hour and its place in that hour), the same in every run of
// the same workload and seed whatever the gateway's knobs: per-request randomness elsewhere is
// keyed by it.
#pragma once

#include <array>
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
    std::string key;       // its API key (bearer token)
    Plan plan = Plan::Free;
    Region home = Region::EU;
    bool pins = false;     // sends X-Region: stays in its home region
    std::uint8_t lang = 0; // index into kLanguages
    double weight = 1;     // share of interactive traffic
};

struct RequestSpec {
    Time at{};
    std::uint64_t trace = 0;
    const char* text = nullptr;  // valid until the next generateHour()
    std::uint32_t customer = 0;  // index; kUnknownCustomer for an unknown API key
    QueryClass query_class = QueryClass::Evergreen;  // the class its text was written for
    std::uint8_t endpoint = 0;  // 0 /search/lite, 1 /search/fast
    std::uint8_t max_results = 10;
    bool batch = false;
    std::uint16_t text_len = 0;
    // Left 0 by the workload, for a driver that works out its gateway's hints ahead (GatewaySim):
    // 1 + the index of the text's analysis in a table of the driver's (0: none), and the text's
    // hash (0: none). In the padding the fields above leave, but for the hash.
    std::uint32_t analysis = 0;
    std::uint64_t text_hash = 0;
    std::string_view query() const { return {text, text_len}; }
};
constexpr std::uint32_t kUnknownCustomer = 0xffffffffu;
constexpr std::string_view kUnknownKey = "tl-unknown-key";

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
    // The requests arriving in hour `h` of the run, in time order (appends to `out`). Their text
    // stays valid until the next call.
    void generateHour(int h, std::vector<RequestSpec>& out);
    // Extra requests for a traffic surge: `share` x the hour's interactive count, spread over
    // [from, to) within hour `h`, from the customers homed in `region` (all when nullopt), drawn
    // from their own stream (keyed by `stream`) so the hour's own arrivals do not change. Trace
    // ids are distinct from every regular arrival's. Appends to `out` unsorted; their text stays
    // valid until the next generateHour().
    void generateSurge(int h, double share, Time from, Time to, std::optional<Region> region,
                       std::uint64_t stream, std::vector<RequestSpec>& out);
    const std::vector<Customer>& customers() const { return customers_; }
    std::uint32_t batchCustomer() const { return batchCustomer_; }
    // Interactive and batch counts per hour of the run.
    const std::vector<std::int64_t>& hourCounts() const { return hourCounts_; }
    const std::vector<std::int64_t>& batchCounts() const { return batchCounts_; }
    static const std::array<ClassMix, kClasses>& classMix();

    // Seed 000's week, hour by hour (168 interactive and 168 batch counts, Mon 00:00 first).
    static void weekHours(std::vector<std::int64_t>& interactive, std::vector<std::int64_t>& batch);

    // The catalog text of query `rank` of class `c` (tests check the compiler's class for it).
    std::string_view catalogText(QueryClass c, std::size_t rank) const {
        return catalog_[static_cast<std::size_t>(c)][rank];
    }
    // A one-off query's text for class `c` and counter `n`.
    static std::string oneOffText(QueryClass c, std::uint64_t n);

private:
    RequestSpec draw(Rng& rng, Time at, bool batch, std::uint32_t customer);
    void drawQuery(Rng& rng, RequestSpec& r);
    std::uint32_t drawCustomer(Rng& rng);
    void sortHour(std::vector<RequestSpec>& out, std::size_t first, int h);

    std::vector<std::unique_ptr<char[]>> arena_;  // one-off texts of the current hour, in blocks
    std::size_t arenaBlock_ = 0, arenaUsed_ = 0;
    char* reserveText();  // room for one text in the arena
    // Each class's catalog texts, as views into one contiguous buffer (a text is read on every
    // arrival that draws it: one buffer keeps the popular ones together).
    std::string catalogBytes_;
    std::array<std::vector<std::string_view>, kClasses> catalog_;
    std::uint64_t seed_ = 0;
    int startHour_ = 0;  // the first hour's hour of the week
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
