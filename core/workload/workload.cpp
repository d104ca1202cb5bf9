#include "workload/workload.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace taillab::gateway {
namespace {

struct DayFigures {
    std::int64_t total;
    int busiestHour;
    std::int64_t busiest;
};
// Seed 000's week of search traffic.
constexpr std::array<DayFigures, 7> kWeek{{{159892, 15, 12342},
                                           {196152, 4, 20412},
                                           {159432, 16, 12435},
                                           {193781, 2, 19937},
                                           {158299, 16, 12400},
                                           {107588, 15, 8398},
                                           {108857, 15, 8308}}};

bool isBatchDay(const DayFigures& d) { return d.busiestHour < 8; }

// Splits `total` into integer parts proportional to `w` (largest remainder; exact sum).
std::vector<std::int64_t> apportion(std::int64_t total, const std::vector<double>& w) {
    const double sum = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<std::int64_t> out(w.size());
    std::vector<std::pair<double, std::size_t>> rest;
    std::int64_t given = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double exact = total * w[i] / sum;
        out[i] = static_cast<std::int64_t>(std::floor(exact));
        given += out[i];
        rest.emplace_back(exact - out[i], i);
    }
    std::stable_sort(rest.begin(), rest.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::int64_t k = 0; k < total - given; ++k) ++out[rest[static_cast<std::size_t>(k)].second];
    return out;
}

std::vector<double> cosineDay(double a, double peak) {
    std::vector<double> w(24);
    for (int h = 0; h < 24; ++h) w[h] = 1 + a * std::cos(2 * M_PI * (h - peak) / 24.0);
    return w;
}

}  // namespace

const std::array<ClassMix, kClasses>& Workload::classMix() {
    // share of requests, catalog size, one-off share: fitted (see week-v4-september.json).
    static const std::array<ClassMix, kClasses> mix{{{0.12, 100, 0.07},
                                                     {0.22, 3000, 0.25},
                                                     {0.15, 2000, 0.14},
                                                     {0.41, 5000, 0.55},
                                                     {0.10, 100, 0.22}}};
    return mix;
}

void Workload::weekHours(std::vector<std::int64_t>& interactive,
                         std::vector<std::int64_t>& batch) {
    double aSum = 0;
    int aCount = 0;
    for (const DayFigures& d : kWeek) {
        if (isBatchDay(d)) continue;
        aSum += 24.0 * d.busiest / d.total - 1;
        ++aCount;
    }
    const double aMean = aSum / aCount;
    interactive.clear();
    batch.clear();
    for (const DayFigures& d : kWeek) {
        std::vector<std::int64_t> hours;
        std::vector<std::int64_t> jobs(24, 0);
        if (!isBatchDay(d)) {
            hours = apportion(d.total, cosineDay(24.0 * d.busiest / d.total - 1, d.busiestHour));
        } else {
            const std::vector<double> w = cosineDay(aMean, 15);
            const double share = w[d.busiestHour] / std::accumulate(w.begin(), w.end(), 0.0);
            // busiest = share * interactive + job, interactive = total - job.
            const double interactiveTotal = (d.total - d.busiest) / (1 - share);
            const auto job = static_cast<std::int64_t>(std::llround(d.total - interactiveTotal));
            hours = apportion(d.total - job, w);
            jobs[d.busiestHour] = d.busiest - hours[d.busiestHour];
            // Whatever rounding left over stays in the day total.
            const std::int64_t sum = std::accumulate(hours.begin(), hours.end(), std::int64_t{0}) +
                                     jobs[d.busiestHour];
            hours[15] += d.total - sum;
        }
        interactive.insert(interactive.end(), hours.begin(), hours.end());
        batch.insert(batch.end(), jobs.begin(), jobs.end());
    }
}

namespace {

constexpr std::array<const char*, 16> kSyllables{"ka", "lo", "mi", "nu", "pe", "ra", "si", "to",
                                                 "va", "ze", "bo", "du", "fi", "gu", "ha", "jo"};
constexpr std::size_t kArenaBlock = 1 << 16;

// Appends a word spelled from n in syllables, at least `min` of them.
template <typename Out>
void spell(Out& out, std::uint64_t n, int min) {
    int k = 0;
    do {
        out.append(kSyllables[n & 15]);
        n >>= 4;
        ++k;
    } while (n != 0 || k < min);
}

// Writes the text of a query of class `c` built from two words; `site` adds a site: operator
// (zero results is then a legitimate answer). Written already normalized: lowercase, single
// spaces, operators last.
template <typename Out>
void writeQuery(Out& t, QueryClass c, std::uint64_t a, std::uint64_t b, int min, bool site) {
    switch (c) {
        case QueryClass::Navigational: spell(t, a, min), t.append(".com"); break;
        case QueryClass::Evergreen:
            spell(t, a, min), t.append(" "), spell(t, b, 2), t.append(" history");
            break;
        case QueryClass::Product: spell(t, a, min), t.append(" price"); break;
        case QueryClass::LongTail:
            t.append("how does "), spell(t, a, min), t.append(" work with "), spell(t, b, 2),
                t.append(" in practice");
            break;
        case QueryClass::News: spell(t, a, min), t.append(" latest"); break;
    }
    if (site) t.append(" site:"), spell(t, b, 2), t.append(".org");
}

std::string queryText(QueryClass c, std::uint64_t a, std::uint64_t b, int min, bool site) {
    std::string t;
    writeQuery(t, c, a, b, min, site);
    return t;
}

// Appends into a fixed buffer (the longest text is well under its size).
struct TextBuffer {
    char* at;
    std::size_t n = 0;
    void append(std::string_view s) {
        std::copy(s.begin(), s.end(), at + n);
        n += s.size();
    }
};
constexpr std::size_t kMaxText = 128;

}  // namespace

std::string Workload::oneOffText(QueryClass c, std::uint64_t n) {
    return queryText(c, n, mix64(n) & 0xfff, 5, false);
}

Workload::Workload(const Params& params, std::uint64_t seed)
    : seed_(seed) {
    const int days = params.integer("days");
    const int start = params.choiceIndex("start_day");
    startHour_ = start * 24;
    const double load = params.real("load_multiplier");
    unknownKeyRate_ = params.real("unknown_key_rate");
    std::vector<std::int64_t> weekI, weekB;
    weekHours(weekI, weekB);
    for (int d = 0; d < days; ++d) {
        const int day = (start + d) % 7;
        for (int h = 0; h < 24; ++h) {
            const auto i = static_cast<std::size_t>(day * 24 + h);
            hourCounts_.push_back(static_cast<std::int64_t>(std::llround(weekI[i] * load)));
            batchCounts_.push_back(static_cast<std::int64_t>(std::llround(weekB[i] * load)));
        }
    }

    // Customers: plans, home regions, pins, Zipf-like traffic weights.
    const int n = params.integer("customers");
    Rng crng(seed, "gateway/customers");
    double total = 0;
    for (int i = 0; i < n; ++i) {
        Customer c;
        const double u = crng.uniform();
        c.plan = u < 0.06 ? Plan::Enterprise : u < 0.32 ? Plan::Pro : Plan::Free;
        const double r = crng.uniform();
        c.home = r < 0.35 ? Region::EU : r < 0.8 ? Region::US : Region::APAC;
        c.pins = crng.bernoulli(0.2);
        c.lang = static_cast<std::uint8_t>(crng.below(kLanguages.size()));
        const double planWeight = c.plan == Plan::Enterprise ? 4 : c.plan == Plan::Pro ? 2 : 1;
        c.weight = planWeight / std::pow(i + 1.0, 0.9);
        char name[48];
        std::snprintf(name, sizeof name, "cust-%03d (%s)", i + 1,
                      std::string(kPlanNames[static_cast<int>(c.plan)]).c_str());
        c.name = name;
        char key[48];
        std::snprintf(key, sizeof key, "tl-cust-%03d-%08llx", i + 1,
                      static_cast<unsigned long long>(mix64(static_cast<std::uint64_t>(i) + 1) & 0xffffffffULL));
        c.key = key;
        total += c.weight;
        customers_.push_back(c);
    }
    double acc = 0;
    std::vector<double> customerCdf;
    for (const Customer& c : customers_) {
        acc += c.weight / total;
        customerCdf.push_back(acc);
    }
    customerCdf.back() = 1.0;
    customerCdf_ = CdfTable(std::move(customerCdf));
    Customer job;
    job.name = "batch-nightly (enterprise)";
    job.key = "tl-batch-nightly";
    job.plan = Plan::Enterprise;
    job.home = Region::US;
    job.weight = 0;
    batchCustomer_ = static_cast<std::uint32_t>(customers_.size());
    customers_.push_back(job);

    // Query classes and their popularity.
    acc = 0;
    for (int c = 0; c < kClasses; ++c) {
        acc += classMix()[c].share;
        classCdf_[c] = acc;
        std::vector<double> cdf(static_cast<std::size_t>(classMix()[c].catalog));
        double s = 0;
        for (std::size_t k = 0; k < cdf.size(); ++k) cdf[k] = (s += 1.0 / (k + 1.0));
        for (double& x : cdf) x /= s;
        zipfCdf_[c] = CdfTable(std::move(cdf));
    }
    classCdf_.back() = 1.0;
    // Catalog texts, rank by rank, class after class, in one buffer (viewed once it is whole).
    std::vector<std::array<std::size_t, 2>> spans;
    for (int c = 0; c < kClasses; ++c) {
        const auto cls = static_cast<QueryClass>(c);
        for (int rank = 0; rank < classMix()[c].catalog; ++rank) {
            const std::uint64_t id =
                static_cast<std::uint64_t>(rank) * kClasses + static_cast<std::uint64_t>(c);
            const std::size_t at = catalogBytes_.size();
            catalogBytes_ += queryText(cls, id, mix64(id) & 0xfff, 2, mix64(id ^ 0x5173) % 50 == 0);
            spans.push_back({at, catalogBytes_.size() - at});
        }
    }
    std::size_t next = 0;
    for (int c = 0; c < kClasses; ++c)
        for (int rank = 0; rank < classMix()[c].catalog; ++rank, ++next)
            catalog_[static_cast<std::size_t>(c)].push_back(
                std::string_view(catalogBytes_).substr(spans[next][0], spans[next][1]));
    // Bursts: sizes 2 + Geometric(mean 3) capped at 40 (mean about 5). A unit starts a burst with
    // probability b so that bursts hold `agent_share` of requests: b k / (b k + 1 - b) = share.
    const double share = params.real("agent_share");
    const double k = 5.0;
    burstStart_ = share / (k - share * (k - 1));
}

char* Workload::reserveText() {
    if (arenaUsed_ + kMaxText > kArenaBlock) {
        ++arenaBlock_;
        arenaUsed_ = 0;
    }
    if (arenaBlock_ == arena_.size()) arena_.push_back(std::make_unique<char[]>(kArenaBlock));
    return arena_[arenaBlock_].get() + arenaUsed_;
}

void Workload::drawQuery(Rng& rng, RequestSpec& r) {
    const int c = static_cast<int>(r.query_class);
    const ClassMix& m = classMix()[c];
    if (rng.bernoulli(m.one_off)) {
        // A one-off: its text is written straight into the hour's arena.
        const std::uint64_t n = ++oneOffCounter_;
        TextBuffer t{reserveText()};
        writeQuery(t, r.query_class, n, mix64(n) & 0xfff, 5, false);
        r.text = t.at;
        r.text_len = static_cast<std::uint16_t>(t.n);
        arenaUsed_ += t.n;
        return;
    }
    const std::string_view text = catalog_[static_cast<std::size_t>(c)][zipfCdf_[c].index(rng.uniform())];
    r.text = text.data();
    r.text_len = static_cast<std::uint16_t>(text.size());
}

namespace {

// Sorts out[first..] by arrival time, all within [from, to), stably: a counting pass into one
// bucket per request by time (the times are spread across the hour, so buckets hold about one
// each), then an insertion sort of each bucket. Linear in expectation, where a comparison sort of
// an hour's 10,000 requests costs about as much as drawing them.
void sortByTime(std::vector<RequestSpec>& out, std::size_t first, Time from, Time to,
                std::vector<RequestSpec>& scratch) {
    const std::size_t n = out.size() - first;
    if (n < 2) return;
    const double perNs = static_cast<double>(n) / static_cast<double>((to - from).count());
    auto bucketOf = [&](const RequestSpec& r) {
        const auto b = static_cast<std::size_t>(static_cast<double>((r.at - from).count()) * perNs);
        return std::min(b, n - 1);
    };
    std::vector<std::uint32_t> starts(n + 1, 0);
    for (std::size_t i = first; i < out.size(); ++i) ++starts[bucketOf(out[i]) + 1];
    for (std::size_t b = 0; b < n; ++b) starts[b + 1] += starts[b];
    scratch.resize(n);
    for (std::size_t i = first; i < out.size(); ++i) scratch[starts[bucketOf(out[i])]++] = out[i];
    // Buckets are in time order; an insertion sort over the whole array orders each bucket,
    // moving a request only past the few that share its bucket.
    for (std::size_t i = 1; i < n; ++i) {
        if (!(scratch[i].at < scratch[i - 1].at)) continue;
        const RequestSpec x = scratch[i];
        std::size_t j = i;
        for (; j > 0 && x.at < scratch[j - 1].at; --j) scratch[j] = scratch[j - 1];
        scratch[j] = x;
    }
    std::copy(scratch.begin(), scratch.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace

std::uint32_t Workload::drawCustomer(Rng& rng) {
    if (rng.bernoulli(unknownKeyRate_)) return kUnknownCustomer;
    return static_cast<std::uint32_t>(customerCdf_.index(rng.uniform()));
}

RequestSpec Workload::draw(Rng& rng, Time at, bool batch, std::uint32_t customer) {
    RequestSpec r;
    r.at = at;
    r.batch = batch;
    r.customer = customer;
    const double u = rng.uniform();
    int c = 0;
    while (c < kClasses - 1 && u >= classCdf_[c]) ++c;
    r.query_class = static_cast<QueryClass>(c);
    r.endpoint = rng.bernoulli(0.7) ? 0 : 1;
    const double m = rng.uniform();
    r.max_results = m < 0.8 ? 10 : m < 0.95 ? 20 : 50;
    drawQuery(rng, r);
    return r;
}

void Workload::generateHour(int h, std::vector<RequestSpec>& out) {
    arenaBlock_ = 0;
    arenaUsed_ = 0;
    const std::size_t first = out.size();
    const Time hourStart = fromSeconds(3600.0 * h);
    const double hourNs = 3600e9;
    // Each hour draws from its own stream, keyed by its hour of the week: a run that starts on
    // Wednesday sees the same Wednesday as a run of the whole week.
    Rng rng(streamKey(seed_, static_cast<std::uint64_t>(startHour_ + h), hashName("workload/hour")));
    oneOffCounter_ = static_cast<std::uint64_t>(startHour_ + h) << 32;
    auto uniformTime = [&] {
        return hourStart + Duration{static_cast<std::int64_t>(rng.uniform() * hourNs)};
    };
    std::int64_t left = hourCounts_[static_cast<std::size_t>(h)];
    while (left > 0) {
        const Time t = uniformTime();
        RequestSpec r = draw(rng, t, false, drawCustomer(rng));
        std::int64_t copies = 1;
        if (rng.bernoulli(burstStart_)) {
            copies = 2;
            while (copies < 40 && !rng.bernoulli(1.0 / 3.0)) ++copies;
        }
        copies = std::min(copies, left);
        out.push_back(r);
        for (std::int64_t i = 1; i < copies; ++i) {
            RequestSpec c = r;
            c.at = std::min(hourStart + fromSeconds(3600) - Duration{1},
                            t + Duration{static_cast<std::int64_t>(rng.uniform() * 20e6)});
            out.push_back(c);
        }
        left -= copies;
    }
    // The batch job: evenly paced by its scheduler across the hour, one request at a time.
    const std::int64_t jobs = batchCounts_[static_cast<std::size_t>(h)];
    for (std::int64_t i = 0; i < jobs; ++i) {
        out.push_back(draw(rng, hourStart + Duration{static_cast<std::int64_t>((i + rng.uniform()) *
                                                                               hourNs / jobs)},
                           true, batchCustomer_));
    }
    sortByTime(out, first, hourStart, hourStart + fromSeconds(3600), sortScratch_);
    for (std::size_t i = first; i < out.size(); ++i)
        out[i].trace = static_cast<std::uint64_t>(h) << 32 | (i - first);
}

void Workload::generateSurge(int h, double share, Time from, Time to, std::optional<Region> region,
                             std::uint64_t stream, std::vector<RequestSpec>& out) {
    if (!(share > 0) || to <= from) return;
    Rng rng(streamKey(seed_, static_cast<std::uint64_t>(startHour_ + h), stream));
    const double span = static_cast<double>((to - from).count());
    const auto n = static_cast<std::int64_t>(
        std::llround(share * static_cast<double>(hourCounts_[static_cast<std::size_t>(h)]) * span / 3600e9));
    const std::uint64_t base = (std::uint64_t{1} << 62) | (stream & 0xffff) << 40 |
                               static_cast<std::uint64_t>(h) << 24;
    const std::uint64_t counter = oneOffCounter_;
    oneOffCounter_ = (std::uint64_t{1} << 62) | (stream & 0xffff) << 40 | static_cast<std::uint64_t>(h) << 24;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t c = drawCustomer(rng);
        // Customers of other regions are redrawn (a few tries), so the surge comes from `region`.
        for (int k = 0; region && c != kUnknownCustomer && customers_[c].home != *region && k < 64; ++k)
            c = drawCustomer(rng);
        if (region && c != kUnknownCustomer && customers_[c].home != *region) continue;
        RequestSpec r = draw(rng, from + Duration{static_cast<std::int64_t>(rng.uniform() * span)},
                             false, c);
        r.trace = base | static_cast<std::uint64_t>(i);
        out.push_back(r);
    }
    oneOffCounter_ = counter;
}

}  // namespace taillab::gateway
