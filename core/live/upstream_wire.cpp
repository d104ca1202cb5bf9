#include "live/upstream_wire.h"

#include <charconv>
#include <cstring>
#include <forward_list>
#include <functional>
#include "live/json_reader.h"
#include "live/json_text.h"

namespace taillab::live {
namespace {

UpstreamReply badPayload(std::string problem) {
    UpstreamReply r;
    r.failure = gateway::CallFailure::BadPayload;
    r.problem = std::move(problem);
    return r;
}

// Appends to a buffer sized up front: every piece of an upstream request's head is bounded, so
// one reserve covers them and no append checks for room.
class Appender {
public:
    explicit Appender(char* at) : p_(at) {}
    Appender& text(std::string_view s) {
        std::memcpy(p_, s.data(), s.size());
        p_ += s.size();
        return *this;
    }
    template <class Integer>
    Appender& decimal(Integer v) {
        p_ = std::to_chars(p_, p_ + 20, v).ptr;
        return *this;
    }
    Appender& hex16(std::uint64_t v) {
        static constexpr char kHex[] = "0123456789abcdef";
        for (int i = 15; i >= 0; --i, v >>= 4) p_[i] = kHex[v & 15];
        p_ += 16;
        return *this;
    }
    char* end() const { return p_; }

private:
    char* p_;
};

}  // namespace

UpstreamRequest upstreamRequest(const gateway::UpstreamCall& call) {
    UpstreamRequest r;
    JsonObjectWriter(r.body)
        .field("query", call.query)
        .field("language", call.lang.empty() ? std::string_view("en") : call.lang)
        .field("max_results", call.fetch_count)
        .close();
    r.trace = call.trace;
    r.role = call.role;
    r.region = call.region;
    r.egress_ip = call.egress_ip;
    r.query_class = call.query_class;
    r.cache_key = call.cache_key;
    return r;
}

void writeUpstreamRequest(std::string& out, const UpstreamRequest& r, std::string_view target,
                          std::string_view host) {
    const std::string_view role = gateway::kCallRoleNames[static_cast<std::size_t>(r.role)];
    const std::string_view region = gateway::kRegionNames[static_cast<std::size_t>(r.region)];
    const std::string_view cls = gateway::kClassNames[static_cast<std::size_t>(r.query_class)];
    // The fixed text and every value at its longest (a 64-bit number is at most 20 digits).
    constexpr std::size_t kFixed = 320;
    out.resize(kFixed + target.size() + host.size() + role.size() + region.size() + cls.size() +
               r.body.size());
    Appender a(out.data());
    a.text("POST ").text(target).text(" HTTP/1.1\r\nX-TailLab-Trace: ").decimal(r.trace);
    a.text("\r\nX-TailLab-Role: ").text(role).text("\r\nX-TailLab-Region: ").text(region);
    a.text("\r\nX-TailLab-Egress: ").decimal(r.egress_ip);
    a.text("\r\nX-TailLab-Class: ").text(cls).text("\r\nX-TailLab-Cache-Key: ").hex16(r.cache_key);
    a.text("\r\nContent-Type: application/json\r\nHost: ").text(host);
    a.text("\r\nUser-Agent: taillab\r\nContent-Length: ").decimal(r.body.size()).text("\r\n\r\n");
    a.text(r.body);
    out.resize(static_cast<std::size_t>(a.end() - out.data()));
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

namespace {

// Reads a result page event by event (readJson): the items are views into the page's own bytes
// (copied once, into the body's text, when the page is built), or for a string with escapes, into
// a copy of its unescaped bytes. A DOM would first build a map and a string per field.
// The whole body is always read, so a body that is not JSON is reported as that even when it
// also has a field of the wrong type. Of several wrong fields, the one reported is the first in
// this order: page, echo, results, then the items in order, each item's fields in the order
// title, url, snippet, score.
class PageReader final : public JsonEvents {
public:
    explicit PageReader(std::string_view body) : body_(body) {
        items_.reserve(16);
        stack_.reserve(8);
    }
    void null() override { scalar(); }
    void boolean(bool) override { scalar(); }
    void number(double v, std::string_view) override {
        if (target() == Target::Score) {
            items_.back().score = v;
            return;
        }
        scalar();
    }
    void string(std::string_view v) override {
        switch (target()) {
            case Target::Page: page(v); break;
            case Target::Echo: echo(v); break;
            case Target::Title: items_.back().title = keep(v); break;
            case Target::Url: items_.back().url = keep(v); break;
            case Target::Snippet: items_.back().snippet = keep(v); break;
            default: wrongContainer(target());
        }
    }
    void startObject() override {
        const Target t = target();
        if (t == Target::Root) {
            stack_.push_back(Frame::Root);
        } else if (t == Target::Item) {
            items_.emplace_back();
            stack_.push_back(Frame::Item);
        } else {
            wrongContainer(t);
            stack_.push_back(Frame::Skip);
        }
    }
    void startArray() override {
        const Target t = target();
        if (t == Target::Results) {
            items_.clear();  // a repeated "results" key: the last one counts, as in a DOM
            sawResults_ = true;
            stack_.push_back(Frame::Results);
        } else {
            wrongContainer(t);
            stack_.push_back(Frame::Skip);
        }
    }
    // By length first: a page has four keys an item, and each string compare was a memcmp call.
    void key(std::string_view k) override {
        field_ = Target::None;
        // k has the name's length: byte by byte, unrolled (memcmp stayed a call).
        const auto is = [k]<std::size_t N>(const char(&name)[N]) {
            for (std::size_t i = 0; i + 1 < N; ++i)
                if (k[i] != name[i]) return false;
            return true;
        };
        if (stack_.back() == Frame::Root) {
            switch (k.size()) {
                case 4:
                    if (is("page")) field_ = Target::Page;
                    else if (is("echo")) field_ = Target::Echo;
                    break;
                case 7:
                    if (is("results")) field_ = Target::Results;
                    break;
            }
        } else if (stack_.back() == Frame::Item) {
            switch (k.size()) {
                case 3:
                    if (is("url")) field_ = Target::Url;
                    break;
                case 5:
                    if (is("title")) field_ = Target::Title;
                    else if (is("score")) field_ = Target::Score;
                    break;
                case 7:
                    if (is("snippet")) field_ = Target::Snippet;
                    break;
            }
        }
    }
    void endObject() override { end(); }
    void endArray() override { end(); }

    // `body`: the bytes this reader read (body_ views them).
    UpstreamReply reply(std::string&& body) {
        if (!sawResults_ && error_.empty()) fail(kResults, "$.results: missing or not an array");
        if (!error_.empty()) return badPayload(std::move(error_));
        UpstreamReply r;
        // readJson refuses a string that is not UTF-8, so the body need not test it again. A
        // page without escapes (as engines write them) has every item viewing its bytes: the
        // body takes them as they are; else it copies the items' text.
        constexpr gateway::ResultBody::Utf8Text utf8;
        r.page = unescaped_.empty() ? std::make_shared<gateway::ResultBody>(std::move(body), std::move(items_), kind_, utf8)
                                    : std::make_shared<gateway::ResultBody>(items_, kind_, utf8);
        r.echo = echo_;
        return r;
    }

private:
    // What the next value is, from where the reader stands.
    enum class Target : std::uint8_t { Root, Page, Echo, Results, Item, Title, Url, Snippet, Score, None };
    enum class Frame : std::uint8_t { Root, Results, Item, Skip };
    // Error ranks: lower wins.
    static constexpr int kRoot = 0, kPage = 1, kEcho = 2, kResults = 3, kItems = 4;

    Target target() const {
        if (stack_.empty()) return Target::Root;
        switch (stack_.back()) {
            case Frame::Root:
            case Frame::Item: return field_;
            case Frame::Results: return Target::Item;
            case Frame::Skip: return Target::None;
        }
        return Target::None;
    }
    void end() {
        stack_.pop_back();
        field_ = Target::None;
    }
    // A value of the wrong type for where it stands.
    void scalar() { wrongContainer(target()); }
    void wrongContainer(Target t) {
        switch (t) {
            case Target::Root: fail(kRoot, "$: not an object"); break;
            case Target::Page: fail(kPage, "$.page: not a string"); break;
            case Target::Echo: fail(kEcho, "$.echo: not up to 16 hex digits"); break;
            case Target::Results: fail(kResults, "$.results: missing or not an array"); break;
            case Target::Item:
                items_.emplace_back();  // keeps the indices of the items after it
                itemFail(-1, ": not an object");
                break;
            case Target::Title: itemFail(0, ".title: not a string"); break;
            case Target::Url: itemFail(1, ".url: not a string"); break;
            case Target::Snippet: itemFail(2, ".snippet: not a string"); break;
            case Target::Score: itemFail(3, ".score: not a number"); break;
            case Target::None: break;
        }
    }
    // A string that outlives the read: `v` itself when it views the page's bytes, else a copy.
    std::string_view keep(std::string_view v) {
        const std::less<const char*> before;
        if (!before(v.data(), body_.data()) && !before(body_.data() + body_.size(), v.data() + v.size()))
            return v;
        return unescaped_.emplace_front(v);
    }
    void page(std::string_view k) {
        if (k == "results") kind_ = gateway::PageKind::Results;
        else if (k == "block") kind_ = gateway::PageKind::BlockPage;
        else if (k == "captcha") kind_ = gateway::PageKind::Captcha;
        else if (k == "consent") kind_ = gateway::PageKind::ConsentWall;
        else fail(kPage, "$.page: unknown page kind '" + std::string(k) + "'");
    }
    void echo(std::string_view e) {
        const char* end = e.data() + e.size();
        if (e.empty() || e.size() > 16 || std::from_chars(e.data(), end, echo_, 16).ptr != end)
            fail(kEcho, "$.echo: not up to 16 hex digits");
    }
    void fail(int rank, std::string message) {
        if (error_.empty() || rank < errorRank_) {
            error_ = std::move(message);
            errorRank_ = rank;
        }
    }
    // A wrong item, the last one read (field -1: the item itself; 0..3 its fields in reading
    // order).
    void itemFail(int field, const char* what) {
        const std::size_t index = items_.size() - 1;
        const int rank = kItems + static_cast<int>(std::min<std::size_t>(index, 1u << 20)) * 8 + field + 1;
        if (!error_.empty() && rank >= errorRank_) return;
        fail(rank, "$.results[" + std::to_string(index) + "]" + what);
    }

    std::string_view body_;
    std::vector<Frame> stack_;
    Target field_ = Target::None;
    std::vector<gateway::ResultRef> items_;
    std::forward_list<std::string> unescaped_;  // stable, and no allocation while empty
    gateway::PageKind kind_ = gateway::PageKind::Results;
    std::uint64_t echo_ = 0;
    bool sawResults_ = false;
    std::string error_;
    int errorRank_ = 0;
};

}  // namespace

UpstreamReply readUpstreamReply(int status, std::string body) {
    if (status != 200) {
        UpstreamReply r;
        r.failure = gateway::CallFailure::HttpError;
        r.http_status = status;
        return r;
    }
    PageReader reader(body);
    if (const std::optional<std::size_t> at = detail::JsonReader<PageReader>(body, reader).run())
        return badPayload("not JSON at byte " + std::to_string(*at));
    return reader.reply(std::move(body));
}

}  // namespace taillab::live
