// Fuzz target: what the live gateway reads off the network apart from HTTP framing (Beast's): a
// client's search request (readSearch: headers and JSON body) and an engine's answer
// (readUpstreamReply), then the answer through validation and ranking as the gateway would.
//
// The input is split at its first six '\n' into method, target, Authorization, X-Region,
// X-Request-Id and Content-Type; the rest is the body, read both as a search request and as an
// engine page (with a status taken from the input's first byte). Invariants: a refusal is a
// 4xx with a JSON body naming its error; an accepted request's query and language are UTF-8; a page
// that parses has only valid UTF-8 text and validation and ranking run on it; nothing throws.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "base/utf8.h"
#include "fuzz_support.h"
#include "gateway/validation.h"
#include "live/search_api.h"
#include "live/upstream_wire.h"

namespace {

bool validUtf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = taillab::utf8SequenceLength(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace taillab;
    using fuzz::check;
    const std::string input = fuzz::inputText(data, size);

    std::string_view rest = input;
    std::string_view fields[6];
    for (std::string_view& f : fields) {
        const std::size_t nl = rest.find('\n');
        if (nl == std::string_view::npos) break;
        f = rest.substr(0, nl);
        rest.remove_prefix(nl + 1);
    }
    live::HttpRequestParts in;
    in.method = fields[0];
    in.target = fields[1];
    // An empty line is a header not sent (one sent empty is refused, a path the others reach).
    if (!fields[2].empty()) in.authorization = fields[2];
    if (!fields[3].empty()) in.region = fields[3];
    if (!fields[4].empty()) in.request_id = fields[4];
    in.content_type = fields[5];
    in.body = rest;

    const auto read = live::readSearch(in, fromMs(1.5));
    if (const auto* reply = std::get_if<live::HttpReply>(&read)) {
        check(reply->status >= 400 && reply->status < 500, "a refused request's status is not 4xx",
              std::to_string(reply->status));
        check(nlohmann::json::accept(reply->body), "a refusal's body is not JSON", reply->body);
        const nlohmann::json body = nlohmann::json::parse(reply->body);
        check(body.is_object() && body.contains("error") && body.at("error").is_string() &&
                  body.contains("message") && body.contains("latency_ms"),
              "a refusal's body lacks error, message or latency_ms", reply->body);
    } else {
        const auto& req = std::get<live::SearchRequest>(read);
        // The JSON fields are text; the API key is the header's bytes as they came (a key that is
        // not one of the gateway's is its 401, which never repeats it).
        check(validUtf8(req.query) && validUtf8(req.language),
              "an accepted request holds text that is not UTF-8");
        const gateway::Request view = req.view(7, Time{});
        check(view.query == req.query && view.max_results == req.max_results,
              "the gateway's view differs from the request read");
    }

    const int status = size > 0 && data[0] % 4 == 0 ? 503 : 200;
    const live::UpstreamReply page = live::readUpstreamReply(status, std::string(rest));
    const gateway::UpstreamAnswer answer = page.answer();
    if (status != 200) {
        check(page.failure == gateway::CallFailure::HttpError, "a 503 is not an HTTP error");
        return 0;
    }
    if (page.failure != gateway::CallFailure::None) {
        check(page.failure == gateway::CallFailure::BadPayload && !page.problem.empty(),
              "a 200 that does not parse is not a bad payload with its problem named");
        return 0;
    }
    check(answer.page != nullptr, "a parsed page is missing");
    for (const gateway::ResultRef& item : answer.page->items())
        check(validUtf8(item.title) && validUtf8(item.url) && validUtf8(item.snippet),
              "a page item holds text that is not UTF-8");
    (void)gateway::validateAnswer(answer, true, std::nullopt);
    (void)gateway::validateAnswer(answer, false, answer.page->fingerprint() ^ 1);
    const auto ranked = answer.page->ranked();
    check(ranked && ranked->size() <= answer.page->items().size(), "ranking made items");
    return 0;
}
