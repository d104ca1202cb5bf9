#include "live/upstream_wire.h"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace taillab::live {
namespace {

using nlohmann::json;

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

UpstreamReply badPayload(std::string problem) {
    UpstreamReply r;
    r.failure = gateway::CallFailure::BadPayload;
    r.problem = std::move(problem);
    return r;
}

}  // namespace

UpstreamRequest upstreamRequest(const gateway::UpstreamCall& call) {
    UpstreamRequest r;
    r.body = json{{"query", std::string(call.query)},
                  {"language", call.lang.empty() ? std::string("en") : std::string(call.lang)},
                  {"max_results", call.fetch_count}}
                 .dump(-1, ' ', false, json::error_handler_t::replace);
    r.headers = {{"X-TailLab-Trace", std::to_string(call.trace)},
                 {"X-TailLab-Role", std::string(gateway::kCallRoleNames[static_cast<std::size_t>(call.role)])},
                 {"X-TailLab-Region", std::string(gateway::kRegionNames[static_cast<std::size_t>(call.region)])},
                 {"X-TailLab-Egress", std::to_string(call.egress_ip)},
                 {"X-TailLab-Class", std::string(gateway::kClassNames[static_cast<std::size_t>(call.query_class)])},
                 {"X-TailLab-Cache-Key", hex16(call.cache_key)}};
    return r;
}

gateway::UpstreamAnswer UpstreamReply::answer() const {
    gateway::UpstreamAnswer a;
    a.failure = failure;
    a.page = failure == gateway::CallFailure::None ? page.get() : nullptr;
    a.echo = echo;
    a.http_status = http_status;
    return a;
}

UpstreamReply upstreamFailure(gateway::CallFailure failure) {
    UpstreamReply r;
    r.failure = failure;
    r.http_status = 0;
    return r;
}

UpstreamReply readUpstreamReply(int status, std::string_view body) {
    if (status != 200) {
        UpstreamReply r;
        r.failure = gateway::CallFailure::HttpError;
        r.http_status = status;
        return r;
    }
    json doc;
    try {
        doc = json::parse(body);
    } catch (const json::parse_error& e) {
        return badPayload("not JSON at byte " + std::to_string(e.byte));
    }
    if (!doc.is_object()) return badPayload("$: not an object");
    gateway::PageKind kind = gateway::PageKind::Results;
    if (const auto it = doc.find("page"); it != doc.end()) {
        if (!it->is_string()) return badPayload("$.page: not a string");
        const std::string& k = it->get_ref<const std::string&>();
        if (k == "results") kind = gateway::PageKind::Results;
        else if (k == "block") kind = gateway::PageKind::BlockPage;
        else if (k == "captcha") kind = gateway::PageKind::Captcha;
        else if (k == "consent") kind = gateway::PageKind::ConsentWall;
        else return badPayload("$.page: unknown page kind '" + k + "'");
    }
    std::uint64_t echo = 0;
    if (const auto it = doc.find("echo"); it != doc.end()) {
        const std::string* e = it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
        const char* end = e ? e->data() + e->size() : nullptr;
        if (!e || e->empty() || e->size() > 16 || std::from_chars(e->data(), end, echo, 16).ptr != end)
            return badPayload("$.echo: not up to 16 hex digits");
    }
    const auto results = doc.find("results");
    if (results == doc.end() || !results->is_array()) return badPayload("$.results: missing or not an array");
    std::vector<gateway::ResultItem> items;
    items.reserve(results->size());
    for (std::size_t i = 0; i < results->size(); ++i) {
        const json& x = (*results)[i];
        const std::string at = "$.results[" + std::to_string(i) + "]";
        if (!x.is_object()) return badPayload(at + ": not an object");
        gateway::ResultItem item;
        for (const auto& [field, target] : {std::pair{"title", &item.title}, std::pair{"url", &item.url},
                                            std::pair{"snippet", &item.snippet}}) {
            const auto f = x.find(field);
            if (f == x.end()) continue;  // an incomplete item is validation's business
            if (!f->is_string()) return badPayload(at + "." + field + ": not a string");
            *target = f->get<std::string>();
        }
        if (const auto f = x.find("score"); f != x.end()) {
            if (!f->is_number()) return badPayload(at + ".score: not a number");
            item.score = f->get<double>();
        }
        items.push_back(std::move(item));
    }
    UpstreamReply r;
    r.page = std::make_shared<gateway::ResultBody>(std::move(items), kind);
    r.echo = echo;
    return r;
}

}  // namespace taillab::live
