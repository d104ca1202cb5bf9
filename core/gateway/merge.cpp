#include "gateway/merge.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "gateway/ascii.h"
#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"

namespace taillab::gateway {
namespace {

void appendLowerAscii(std::string& out, std::string_view s) {
    const std::size_t at = out.size();
    out.resize(at + s.size());
    char* d = out.data() + at;
    for (const char c : s) *d++ = lowerAscii(c);
}

// `s` equals `lower` (lower-case ASCII) ignoring ASCII case.
bool equalsLowerAscii(std::string_view s, std::string_view lower) {
    if (s.size() != lower.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c) != lower[i]) return false;
    }
    return true;
}

// "scheme" before "://": a letter, then letters, digits, '+', '-', '.'.
bool isScheme(std::string_view s) {
    const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (s.empty() || !letter(s.front())) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) {
        return letter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    });
}

// Ranks NaN below every number, so the ordering stays a strict weak order.
double rankScore(double s) { return std::isnan(s) ? -std::numeric_limits<double>::infinity() : s; }

// Bytes a simple host may hold: lower-case letters, digits, '.' and '-'.
constexpr std::array<bool, 256> kSimpleHostByte = [] {
    std::array<bool, 256> table{};
    for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
    for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
    table['.'] = table['-'] = true;
    return table;
}();

// The canonical form of a URL that is already nearly canonical, as most result URLs are:
// "http://" or "https://", a host of lower-case letters, digits, '.' and '-' that does not start
// with "www.", then a path with no '?' or '#' and nothing to trim at its end. The canonical form
// is then the URL itself with the path's trailing slashes dropped (an empty path becomes "/"),
// which is what the general reading below gives it: one pass instead of a dozen. Returns false,
// having appended nothing, for any other URL. The test GatewayMergeCanonicalUrl.FastPathAgrees
// holds the two together.
bool appendSimpleCanonicalUrl(std::string& out, std::string_view url) {
    std::size_t i;
    if (url.starts_with("https://")) i = 8;
    else if (url.starts_with("http://")) i = 7;
    else return false;
    const std::size_t hostStart = i;
    for (; i < url.size() && url[i] != '/'; ++i)
        if (!kSimpleHostByte[static_cast<unsigned char>(url[i])]) return false;
    if (i == hostStart || url.substr(hostStart).starts_with("www.")) return false;
    // The path url[i, end): no query or fragment, nothing to trim, trailing slashes dropped.
    std::size_t end = url.size();
    for (std::size_t k = i; k < end; ++k)
        if (url[k] == '?' || url[k] == '#') return false;
    if (end > i && isAsciiSpace(url[end - 1])) return false;
    while (end - i > 1 && url[end - 1] == '/') --end;
    // The canonical form is a prefix of the URL (and a '/' for an empty path): one append.
    out.append(url.data(), end);
    if (end == i) out += '/';
    return true;
}

// canonicalUrl(url) appended to `out` by the general reading: at most url.size() + 1 bytes.
void appendCanonicalUrlGeneral(std::string& out, std::string_view url) {
    url = trimAscii(url);
    url = url.substr(0, url.find('#'));
    if (url.empty()) return;

    std::string_view scheme;  // as written; compared in lower case
    std::string_view rest = url;
    const std::size_t sep = url.find("://");
    if (sep != std::string_view::npos && isScheme(url.substr(0, sep))) {
        scheme = url.substr(0, sep);
        appendLowerAscii(out, scheme);
        out += "://";
        rest = url.substr(sep + 3);
    } else if (url.starts_with("//")) {
        out += "//";
        rest = url.substr(2);
    }

    const bool has_authority = !scheme.empty() || url.starts_with("//") || !url.starts_with("/");
    if (has_authority) {
        const std::size_t auth_end = findFirstOf(rest, "/?");
        std::string_view authority = rest.substr(0, auth_end);
        rest = auth_end == std::string_view::npos ? std::string_view{} : rest.substr(auth_end);

        const std::size_t at = authority.rfind('@');
        if (at != std::string_view::npos) {
            out.append(authority.substr(0, at + 1));  // userinfo, as written
            authority.remove_prefix(at + 1);
        }
        std::string_view host = authority, port;
        const std::size_t bracket = authority.rfind(']');
        const std::size_t colon = authority.rfind(':');
        if (colon != std::string_view::npos &&
            (bracket == std::string_view::npos || colon > bracket)) {
            host = authority.substr(0, colon);
            port = authority.substr(colon + 1);
        }
        if (host.size() > 4 && equalsLowerAscii(host.substr(0, 4), "www.")) host.remove_prefix(4);
        appendLowerAscii(out, host);
        const bool default_port = port.empty() || (equalsLowerAscii(scheme, "http") && port == "80") ||
                                  (equalsLowerAscii(scheme, "https") && port == "443");
        if (!default_port) {
            out += ':';
            out.append(port);
        }
    }

    const std::size_t question = rest.find('?');
    std::string_view path = rest.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view{} : rest.substr(question);
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    if (path.empty() && has_authority) path = "/";
    out.append(path);
    if (!query.empty()) {
        const std::size_t at = out.size();
        out.resize(at + query.size());
        out.resize(at + detail::stripTrackingParamsTo(query, out.data() + at));
    }
}

// canonicalUrl(url) appended to `out`: at most url.size() + 1 bytes.
void appendCanonicalUrl(std::string& out, std::string_view url) {
    if (!appendSimpleCanonicalUrl(out, url)) appendCanonicalUrlGeneral(out, url);
}

}  // namespace

std::string canonicalUrl(std::string_view url) {
    std::string out;
    out.reserve(url.size() + 1);
    appendCanonicalUrl(out, url);
    return out;
}

namespace detail {
std::string canonicalUrlGeneral(std::string_view url) {
    std::string out;
    out.reserve(url.size() + 1);
    appendCanonicalUrlGeneral(out, url);
    return out;
}
}  // namespace detail

std::vector<const ResultRef*> rankItems(std::span<const std::span<const ResultRef>> answers,
                                        std::size_t max_results) {
    // Every item with its canonical URL, in answer order then position: the order that breaks
    // score ties in dedupe. The keys share one buffer, sized up front (a key is at most its URL
    // and a '/'), so none allocates.
    struct Entry {
        std::uint32_t keyAt, keySize;
        const ResultRef* item;
        double score;
        std::uint32_t order;
        std::uint64_t tail;  // the key's last (up to) 8 bytes: keys that differ mostly differ there
    };
    std::size_t total = 0, room = 0;
    for (const auto answer : answers) {
        total += answer.size();
        for (const ResultRef& item : answer) room += item.url.size() + 1;
    }
    std::string keys;
    keys.reserve(room);
    std::vector<Entry> entries;
    entries.reserve(total);
    for (const auto answer : answers) {
        for (const ResultRef& item : answer) {
            const std::size_t at = keys.size();
            appendCanonicalUrl(keys, item.url);
            const std::size_t size = keys.size() - at;
            if (size == 0) continue;
            std::uint64_t tail = 0;
            const std::size_t n = std::min<std::size_t>(size, 8);
            std::memcpy(&tail, keys.data() + at + size - n, n);
            entries.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(size), &item,
                               rankScore(item.score), static_cast<std::uint32_t>(entries.size()), tail});
        }
    }
    const auto key = [&](const Entry& e) { return std::string_view(keys).substr(e.keyAt, e.keySize); };
    // The ranking rule, whichever way it is reached: one item per key (the best score, ties to
    // the earliest), ranked by score, ties by key.
    if (entries.size() <= 32) {
        // A page's few items (every answer the gateway merges alone): each item against the keys
        // kept so far, most told apart by their tails, then ranked by insertion. No key is sorted
        // or compared as a string unless two items share a tail or a score.
        const auto sameKey = [&](const Entry& a, const Entry& b) {
            return a.tail == b.tail && a.keySize == b.keySize && key(a) == key(b);
        };
        std::size_t kept = 0;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const Entry e = entries[i];
            std::size_t j = 0;
            while (j < kept && !sameKey(entries[j], e)) ++j;
            if (j == kept) entries[kept++] = e;
            else if (e.score > entries[j].score) entries[j] = e;
        }
        entries.resize(kept);
        const auto before = [&](const Entry& a, const Entry& b) {
            return a.score != b.score ? a.score > b.score : key(a) < key(b);
        };
        for (std::size_t i = 1; i < entries.size(); ++i) {
            const Entry e = entries[i];
            std::size_t j = i;
            for (; j > 0 && before(e, entries[j - 1]); --j) entries[j] = entries[j - 1];
            entries[j] = e;
        }
    } else {
        // Dedupe: by key, the best score first, ties to the earliest; keep each key's first.
        std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
            if (const int c = key(a).compare(key(b)); c != 0) return c < 0;
            if (a.score != b.score) return a.score > b.score;
            return a.order < b.order;
        });
        entries.erase(std::unique(entries.begin(), entries.end(),
                                  [&](const Entry& a, const Entry& b) { return key(a) == key(b); }),
                      entries.end());
        // Rank: by score, ties by key (already in key order, so a stable sort keeps it).
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry& a, const Entry& b) { return a.score > b.score; });
    }
    const std::size_t n = std::min(entries.size(), max_results);
    std::vector<const ResultRef*> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(entries[i].item);
    return out;
}

std::vector<ResultItem> mergeResults(const std::vector<std::vector<ResultItem>>& answers,
                                     int max_results) {
    if (max_results < 0)
        throw std::invalid_argument("mergeResults: max_results must be >= 0, got " +
                                    std::to_string(max_results));
    std::vector<std::vector<ResultRef>> refs(answers.size());
    std::vector<std::span<const ResultRef>> lists;
    lists.reserve(answers.size());
    for (std::size_t i = 0; i < answers.size(); ++i) {
        refs[i].reserve(answers[i].size());
        for (const ResultItem& item : answers[i]) refs[i].emplace_back(item);
        lists.emplace_back(refs[i]);
    }
    std::vector<ResultItem> out;
    const std::vector<const ResultRef*> ranked = rankItems(lists, static_cast<std::size_t>(max_results));
    out.reserve(ranked.size());
    for (const ResultRef* item : ranked) out.push_back(item->copy());
    return out;
}

std::shared_ptr<const RankedResults> mergeAnswers(const std::vector<const ResultBody*>& pages) {
    if (pages.size() == 1) return pages.front()->ranked();
    auto merged = std::make_shared<RankedResults>();
    std::vector<std::span<const ResultRef>> lists;
    std::size_t total = 0;
    for (const ResultBody* p : pages) {
        std::shared_ptr<const ResultBody> owner = p->weak_from_this().lock();
        // A body no shared_ptr owns could not be kept alive with the merge: it merges a copy.
        if (!owner) owner = std::make_shared<const ResultBody>(p->items(), p->kind());
        lists.push_back(owner->items());
        total += owner->items().size();
        merged->sources.push_back(std::move(owner));
    }
    merged->items = rankItems(lists, total);
    return merged;
}

}  // namespace taillab::gateway
