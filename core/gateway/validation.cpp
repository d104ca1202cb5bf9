#include "gateway/validation.h"

#include <bit>
#include <cmath>
#include <string>
#include <string_view>

#include "gateway/ascii.h"
#include "gateway/compiler.h"

namespace taillab::gateway {
namespace {

bool present(std::string_view field) { return !trimAscii(field).empty(); }

bool equalsLowerAscii(std::string_view s, std::string_view lower) {
    if (s.size() != lower.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

}  // namespace

namespace detail {
// Absolute http(s) URL with a non-empty host, by the general reading.
bool isHttpUrlGeneral(std::string_view url) {
    url = trimAscii(url);
    const std::size_t sep = url.find("://");
    if (sep == std::string_view::npos) return false;
    const std::string_view scheme = url.substr(0, sep);
    if (!equalsLowerAscii(scheme, "http") && !equalsLowerAscii(scheme, "https")) return false;
    std::string_view authority = url.substr(sep + 3);
    authority = authority.substr(0, findFirstOf(authority, "/?#"));
    const std::size_t at = authority.rfind('@');
    if (at != std::string_view::npos) authority.remove_prefix(at + 1);
    return !authority.empty() && authority.front() != ':';
}
}  // namespace detail

namespace {

// The same, in one pass for the usual shape: "http://" or "https://" then a host that starts
// with a letter or digit and has no userinfo ('@') before its first '/', '?' or '#'. Such a URL
// is one (trimming cannot reach its host's first byte); any other goes to the general reading.
// GatewayValidation.HttpUrlFastPathAgrees holds the two together.
bool isHttpUrl(std::string_view url) {
    std::size_t i;
    if (url.starts_with("https://")) i = 8;
    else if (url.starts_with("http://")) i = 7;
    else return detail::isHttpUrlGeneral(url);
    const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    if (i == url.size() || !alnum(url[i])) return detail::isHttpUrlGeneral(url);
    for (; i < url.size(); ++i) {
        const char c = url[i];
        if (c == '/' || c == '?' || c == '#') break;
        if (c == '@') return detail::isHttpUrlGeneral(url);
    }
    return true;
}

}  // namespace

bool itemMalformed(const ResultRef& item, bool text_is_utf8) {
    if (!std::isfinite(item.score)) return true;
    if (!text_is_utf8)
        for (const std::string_view f : {item.title, item.url, item.snippet})
            if (invalidUtf8Offset(f)) return true;
    return present(item.url) && !isHttpUrl(item.url);
}

bool itemComplete(const ResultRef& item) {
    return present(item.title) && present(item.url) && present(item.snippet);
}

const char* validityName(Validity v) {
    switch (v) {
        case Validity::Valid: return "valid";
        case Validity::Malformed: return "malformed";
        case Validity::Empty: return "empty";
        case Validity::BlockPage: return "block_page";
        case Validity::Incomplete: return "incomplete";
        case Validity::DuplicateOfOtherQuery: return "duplicate_of_other_query";
        case Validity::NoAnswer: return "no_answer";
    }
    return "unknown";
}

// Each field's hashRawText (which mixes in its length, so fields cannot run into each other)
// and the score's bits, folded in order through mix64 after the item count.
std::uint64_t resultsFingerprint(std::span<const ResultRef> items) {
    std::uint64_t h = mix64(items.size());
    for (const ResultRef& item : items) {
        h = mix64(h ^ hashRawText(item.title));
        h = mix64(h ^ hashRawText(item.url));
        h = mix64(h ^ hashRawText(item.snippet));
        h = mix64(h ^ std::bit_cast<std::uint64_t>(item.score));
    }
    return h;
}

std::uint64_t resultsFingerprint(const std::vector<ResultItem>& items) {
    std::vector<ResultRef> refs;
    refs.reserve(items.size());
    for (const ResultItem& item : items) refs.emplace_back(item);
    return resultsFingerprint(refs);
}

Validity validateAnswer(const UpstreamAnswer& answer, bool zero_results_allowed,
                        std::optional<std::uint64_t> previous_fingerprint_other_query) {
    if (answer.failure != CallFailure::None || !answer.page) return Validity::NoAnswer;
    const ResultBody& page = *answer.page;
    if (page.kind() != PageKind::Results) return Validity::BlockPage;
    if (page.malformed()) return Validity::Malformed;
    const std::size_t n = page.items().size();
    if (n == 0) return zero_results_allowed ? Validity::Valid : Validity::Empty;
    if (2 * page.complete() < n) return Validity::Incomplete;
    if (previous_fingerprint_other_query &&
        *previous_fingerprint_other_query == answer.fingerprint())
        return Validity::DuplicateOfOtherQuery;
    return Validity::Valid;
}

Validity validateResults(const std::vector<ResultItem>& items, bool zero_results_allowed,
                         bool looks_like_block_page,
                         std::optional<std::uint64_t> previous_fingerprint_other_query) {
    const ResultBody body(items, looks_like_block_page ? PageKind::BlockPage : PageKind::Results);
    UpstreamAnswer answer;
    answer.page = &body;
    return validateAnswer(answer, zero_results_allowed, previous_fingerprint_other_query);
}

}  // namespace taillab::gateway
