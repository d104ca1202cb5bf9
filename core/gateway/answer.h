// What an upstream engine answers, as the gateway sees it: either a failure (a reset connection, a
// call that timed out, an HTTP error, a payload that does not parse) or a result page.
//
// A page is parsed once, by whoever received it (the live driver's HTTP client, or the simulated
// fleet), into a ResultBody: its items, the kind of page its structure says it is (results, or a
// block page, CAPTCHA or consent wall, fingerprinted by structure rather than text), and what
// validation needs of the items, computed at construction (schema check, complete items, the
// fingerprint of its bytes). A body is immutable and shared: the cache keeps answers by handle,
// and the merge of a body's items is computed once and kept with it.
//
// An answer's bytes are its body plus the query the upstream says it answered (`echo`, a hash of
// the query text; 0 when the upstream does not echo it). A block page cached by an upstream and
// served again for another query has the same bytes, echo included: that is how validation
// recognises it (seed 000: "byte-identical to the previous answer from that egress IP for a
// different query").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/rng.h"

namespace taillab::gateway {

// One result as a caller writes it down (the simulated fleet's synthetic pages, tests): it owns
// its text. A ResultBody copies what it is given into storage of its own.
struct ResultItem {
    std::string title, url, snippet;
    double score = 0;  // higher ranks first
};

// One result as a body holds it: views into the body's own text, which lives as long as the
// body. This is what validation, merge and the writers read.
struct ResultRef {
    std::string_view title, url, snippet;
    double score = 0;

    ResultRef() = default;
    ResultRef(std::string_view t, std::string_view u, std::string_view s, double sc)
        : title(t), url(u), snippet(s), score(sc) {}
    // A view of `item`, valid while `item` is.
    explicit ResultRef(const ResultItem& item)
        : title(item.title), url(item.url), snippet(item.snippet), score(item.score) {}
    ResultItem copy() const { return {std::string(title), std::string(url), std::string(snippet), score}; }
};

class ResultBody;

// The items of one answer after merge: deduplicated by canonical URL and ranked (merge.h). The
// items point into the bodies they came from, never copied: a RankedResults keeps those bodies
// alive (a body's own ranking shares the body's ownership; a merge of several keeps them in
// `sources`).
struct RankedResults {
    std::vector<const ResultRef*> items;
    std::vector<std::shared_ptr<const ResultBody>> sources;

    std::size_t size() const { return items.size(); }
    const ResultRef& operator[](std::size_t i) const { return *items[i]; }
    // A ranking of `list` in its order, over a body of its own.
    static RankedResults copyOf(std::vector<ResultItem> list);
};

enum class PageKind : std::uint8_t { Results, BlockPage, Captcha, ConsentWall };

// A result page. Its text is one allocation: every item's title, URL and snippet copied into a
// buffer sized up front, the items being views into it, so a parsed page costs three
// allocations (body, text, items) whatever its size.
class ResultBody : public std::enable_shared_from_this<ResultBody> {
public:
    explicit ResultBody(const std::vector<ResultItem>& items, PageKind kind = PageKind::Results);
    // Copies the text `items` view (which need only live through the call).
    explicit ResultBody(std::span<const ResultRef> items, PageKind kind = PageKind::Results);
    // The same, for text a strict JSON reader has already refused unless it was UTF-8: the
    // schema check does not test it again.
    struct Utf8Text {};
    ResultBody(std::span<const ResultRef> items, PageKind kind, Utf8Text);
    // Takes `text` and `items` whose fields all view bytes of `text` (a page as it was read, its
    // items pointing into it): nothing is copied, and the body keeps the whole text. UTF-8 as
    // above. `text` by reference: the views are into that object's bytes, which a short string
    // holds inside the object itself (a by-value parameter would already be another object).
    ResultBody(std::string&& text, std::vector<ResultRef> items, PageKind kind, Utf8Text);
    ResultBody(const ResultBody&) = delete;
    ResultBody& operator=(const ResultBody&) = delete;

    std::span<const ResultRef> items() const { return items_; }
    PageKind kind() const { return kind_; }
    // Some item does not fit the schema (non-finite score, a URL that is not absolute http(s)
    // with a host, a field that is not UTF-8).
    bool malformed() const { return malformed_; }
    // Items with a title, a URL and a snippet (each with a non-whitespace character).
    std::size_t complete() const { return complete_; }
    // resultsFingerprint(items()): equal lists, equal fingerprints.
    std::uint64_t fingerprint() const { return fingerprint_; }
    // The items merged on their own (mergeResults of this one answer, every item kept), computed
    // on first use and kept with the body: the pointer shares the body's ownership when a
    // shared_ptr owns it (else it ranks a copy of the body). Not thread-safe: a body belongs to
    // one gateway at a time.
    std::shared_ptr<const RankedResults> ranked() const;

private:
    void adopt(std::span<const ResultRef> items, bool text_is_utf8);
    // Sets malformed_, complete_ and fingerprint_ from items_.
    void judge(bool text_is_utf8);

    std::string text_;
    std::vector<ResultRef> items_;
    PageKind kind_;
    bool malformed_ = false;
    std::size_t complete_ = 0;
    std::uint64_t fingerprint_ = 0;
    mutable RankedResults ranked_;
    mutable bool rankedDone_ = false;
};

enum class CallFailure : std::uint8_t {
    None,        // a page arrived
    Reset,       // the connection was reset or refused
    Timeout,     // the upstream gave up (or its own timeout fired) before answering
    HttpError,   // a status other than 200
    BadPayload,  // a 200 whose body does not parse as a result page
};

struct UpstreamAnswer {
    CallFailure failure = CallFailure::None;
    // The page when failure == None. Borrowed for the duration of the call that hands it over;
    // the gateway keeps its own reference (shared_from_this) when it caches the answer.
    const ResultBody* page = nullptr;
    std::uint64_t echo = 0;  // hash of the query text the upstream says it answered; 0: none
    int http_status = 200;

    // The fingerprint of the answer's bytes: the body's, and the echoed query's.
    std::uint64_t fingerprint() const {
        if (!page) return 0;
        return echo == 0 ? page->fingerprint() : mix64(page->fingerprint() ^ mix64(echo));
    }
};

}  // namespace taillab::gateway
