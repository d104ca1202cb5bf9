#include "gateway/merge.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "gateway/ascii.h"
#include "gateway/compiler.h"

namespace taillab::gateway {
namespace {

std::string lowerAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// "scheme" before "://": a letter, then letters, digits, '+', '-', '.'.
bool isScheme(std::string_view s) {
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s.front()))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    });
}

// Ranks NaN below every number, so the ordering stays a strict weak order.
double rankScore(double s) { return std::isnan(s) ? -std::numeric_limits<double>::infinity() : s; }

}  // namespace

std::string canonicalUrl(std::string_view url) {
    url = trimAscii(url);
    url = url.substr(0, url.find('#'));
    if (url.empty()) return {};

    std::string scheme;
    std::string_view rest = url;
    const std::size_t sep = url.find("://");
    if (sep != std::string_view::npos && isScheme(url.substr(0, sep))) {
        scheme = lowerAscii(url.substr(0, sep));
        rest = url.substr(sep + 3);
    } else if (url.starts_with("//")) {
        rest = url.substr(2);
    }

    std::string out;
    if (!scheme.empty())
        out = scheme + "://";
    else if (url.starts_with("//"))
        out = "//";

    const bool has_authority = !scheme.empty() || url.starts_with("//") || !url.starts_with("/");
    if (has_authority) {
        const std::size_t auth_end = rest.find_first_of("/?");
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
        std::string lower_host = lowerAscii(host);
        if (lower_host.starts_with("www.") && lower_host.size() > 4) lower_host.erase(0, 4);
        out += lower_host;
        const bool default_port = port.empty() || (scheme == "http" && port == "80") ||
                                  (scheme == "https" && port == "443");
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
    if (!query.empty()) out += stripTrackingParams(query);
    return out;
}

std::vector<ResultItem> mergeResults(std::vector<std::vector<ResultItem>> answers,
                                     int max_results) {
    if (max_results < 0)
        throw std::invalid_argument("mergeResults: max_results must be >= 0, got " +
                                    std::to_string(max_results));
    struct Entry {
        std::string key;
        ResultItem item;
    };
    std::vector<Entry> entries;
    std::unordered_map<std::string, std::size_t> index;  // canonical URL -> entries slot
    for (auto& answer : answers) {
        for (auto& item : answer) {
            std::string key = canonicalUrl(item.url);
            if (key.empty()) continue;
            const auto [it, inserted] = index.try_emplace(key, entries.size());
            if (inserted) {
                entries.push_back({std::move(key), std::move(item)});
            } else if (rankScore(item.score) > rankScore(entries[it->second].item.score)) {
                entries[it->second].item = std::move(item);  // strictly better: ties keep the first
            }
        }
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        const double sa = rankScore(a.item.score), sb = rankScore(b.item.score);
        if (sa != sb) return sa > sb;
        return a.key < b.key;
    });
    const std::size_t n = std::min(entries.size(), static_cast<std::size_t>(max_results));
    std::vector<ResultItem> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::move(entries[i].item));
    return out;
}

std::shared_ptr<const RankedResults> mergeAnswers(const std::vector<const ResultBody*>& pages) {
    if (pages.size() == 1) return pages.front()->ranked();
    std::vector<std::vector<ResultItem>> answers;
    std::size_t total = 0;
    for (const ResultBody* p : pages) {
        answers.push_back(p->items());
        total += p->items().size();
    }
    auto merged = std::make_shared<RankedResults>();
    merged->items = mergeResults(std::move(answers), static_cast<int>(total));
    return merged;
}

}  // namespace taillab::gateway
