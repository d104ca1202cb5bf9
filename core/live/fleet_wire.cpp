#include "live/fleet_wire.h"

#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "gateway/compiler.h"
#include "live/ascii.h"
#include "live/json_text.h"
#include "scenario/json_locate.h"

namespace taillab::live {
namespace {

using nlohmann::json;

template <std::size_t N>
std::optional<std::size_t> indexOf(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == name) return i;
    return std::nullopt;
}

template <std::size_t N>
std::string listOf(const std::array<std::string_view, N>& names) {
    std::string s;
    for (const auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

std::optional<std::uint64_t> parseUnsigned(std::string_view text, int base) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return v;
}

// Fills `call` from the X-TailLab-* headers present; the first wrong one is returned.
std::optional<WireError> readHeaders(const ServerRequest& r, FleetCall& out, int egressIps) {
    gateway::UpstreamCall& c = out.call;
    if (const auto v = r.header("X-TailLab-Trace")) {
        const auto t = parseUnsigned(trimSpaces(*v), 10);
        if (!t) return WireError{"X-TailLab-Trace", "must be a decimal number below 2^64"};
        c.trace = *t;
        out.traced = true;
    }
    if (const auto v = r.header("X-TailLab-Role")) {
        const auto i = indexOf(gateway::kCallRoleNames, trimSpaces(*v));
        if (!i) return WireError{"X-TailLab-Role", "must be one of " + listOf(gateway::kCallRoleNames)};
        c.role = static_cast<gateway::CallRole>(*i);
    }
    if (const auto v = r.header("X-TailLab-Region")) {
        const auto i = indexOf(gateway::kRegionNames, trimSpaces(*v));
        if (!i) return WireError{"X-TailLab-Region", "must be one of " + listOf(gateway::kRegionNames)};
        c.region = static_cast<gateway::Region>(*i);
    }
    if (const auto v = r.header("X-TailLab-Egress")) {
        const auto e = parseUnsigned(trimSpaces(*v), 10);
        if (!e || *e >= static_cast<std::uint64_t>(egressIps))
            return WireError{"X-TailLab-Egress",
                             "must be an egress IP index from 0 to " + std::to_string(egressIps - 1)};
        c.egress_ip = static_cast<int>(*e);
    }
    if (const auto v = r.header("X-TailLab-Class")) {
        const auto i = indexOf(gateway::kClassNames, trimSpaces(*v));
        if (!i) return WireError{"X-TailLab-Class", "must be one of " + listOf(gateway::kClassNames)};
        c.query_class = static_cast<gateway::QueryClass>(*i);
    }
    if (const auto v = r.header("X-TailLab-Cache-Key")) {
        const std::string_view t = trimSpaces(*v);
        const auto k = t.size() == 16 ? parseUnsigned(t, 16) : std::nullopt;
        if (!k) return WireError{"X-TailLab-Cache-Key", "must be 16 hex digits"};
        c.cache_key = *k;
    }
    return std::nullopt;
}

}  // namespace

std::variant<FleetCall, WireError> readFleetCall(const ServerRequest& request, int engine, int egressIps) {
    json body;
    try {
        body = json::parse(request.body);
    } catch (const json::parse_error& e) {
        // Said as the gateway says it: valid JSON with a value the parser refuses by its path,
        // anything else by line and column.
        if (const auto value = findJsonTextProblem(request.body, "a search needs one"))
            return WireError{value->path, value->message};
        return WireError{"$", notJsonMessage(request.body)
                                  .value_or("the body is not valid JSON (at byte " + std::to_string(e.byte) + ")")};
    }
    if (!body.is_object()) return WireError{"$", "the body must be a JSON object"};
    std::string query, language = "en";
    int maxResults = 10;
    bool sawQuery = false;
    for (auto it = body.begin(); it != body.end(); ++it) {
        const json& v = it.value();
        if (it.key() == "query") {
            if (!v.is_string()) return WireError{"$.query", "must be a string"};
            query = v.get<std::string>();
            sawQuery = true;
        } else if (it.key() == "language") {
            if (!v.is_string() || !isLanguageTag(v.get_ref<const std::string&>()))
                return WireError{"$.language", std::string(kLanguageTagRule)};
            language = v.get<std::string>();
        } else if (it.key() == "max_results") {
            if (!v.is_number_integer() || !gateway::maxResultsInRange(v.get<std::int64_t>()))
                return WireError{"$.max_results", gateway::maxResultsRangeText()};
            maxResults = v.get<int>();
        } else {
            return WireError{"$." + it.key(), "is not a field of a search (query, language, max_results)"};
        }
    }
    if (!sawQuery) return WireError{"$.query", "is missing"};
    FleetCall out;
    out.call.engine = engine;
    if (const auto e = readHeaders(request, out, egressIps)) return *e;
    gateway::CompileInput in;
    in.endpoint = gateway::kEndpointPaths[0];
    in.region = gateway::kRegionNames[static_cast<std::size_t>(out.call.region)];
    in.lang = language;
    in.mode = "web";
    in.query = query;
    in.max_results = maxResults;
    try {
        const gateway::CompiledQuery q = gateway::compileQuery(in);
        out.call.fetch_count = q.fetch_count;
        if (!request.header("X-TailLab-Class")) out.call.query_class = q.query_class;
        if (!request.header("X-TailLab-Cache-Key")) out.call.cache_key = q.cache_key;
    } catch (const std::invalid_argument& e) {
        return WireError{"$.query", e.what()};
    }
    return out;
}

const char* pageKindName(gateway::PageKind kind) {
    switch (kind) {
        case gateway::PageKind::Results: return "results";
        case gateway::PageKind::BlockPage: return "block";
        case gateway::PageKind::Captcha: return "captcha";
        case gateway::PageKind::ConsentWall: return "consent";
    }
    return "results";
}

std::string resultItemsJson(const gateway::ResultBody& page) {
    json items = json::array();
    for (const auto& i : page.items())
        items.push_back({{"title", i.title}, {"url", i.url}, {"snippet", i.snippet}, {"score", i.score}});
    return items.dump();
}

std::string pageJson(gateway::PageKind kind, std::uint64_t echo, const std::string& itemsJson) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex(16, '0');
    for (int i = 15; i >= 0; --i, echo >>= 4) hex[static_cast<std::size_t>(i)] = kHex[echo & 15];
    std::string s = R"({"page":")";
    s += pageKindName(kind);
    s += R"(","echo":")";
    s += hex;
    s += R"(","results":)";
    s += itemsJson;
    s += '}';
    return s;
}

HttpReply wireErrorReply(const Loop& loop, Time accepted, const WireError& error) {
    return jsonError(loop, accepted, 400, "bad_request", error.path + ": " + error.message);
}

}  // namespace taillab::live
