// The gateway's merge stage: canonical URLs, dedupe and ranking, and answer validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gateway/merge.h"
#include "gateway/validation.h"
#include "base/rng.h"

namespace taillab::gateway {
namespace {

ResultItem item(std::string url, double score, std::string title = "t", std::string snippet = "s") {
    return ResultItem{std::move(title), std::move(url), std::move(snippet), score};
}

std::vector<std::string> urls(const std::vector<ResultItem>& items) {
    std::vector<std::string> out;
    for (const auto& i : items) out.push_back(i.url);
    return out;
}

// ---- canonicalUrl --------------------------------------------------------------------------

TEST(GatewayMergeCanonicalUrl, SpellingsOfOnePageMeet) {
    const std::string canon = "https://example.com/docs/page?id=3&lang=en";
    for (const char* u : {
             "https://example.com/docs/page?id=3&lang=en",
             "HTTPS://Example.COM/docs/page?id=3&lang=en",
             "https://www.example.com/docs/page?id=3&lang=en",
             "https://example.com:443/docs/page?id=3&lang=en",
             "https://example.com/docs/page/?id=3&lang=en",
             "https://example.com/docs/page?id=3&lang=en#section-2",
             "https://example.com/docs/page?utm_source=x&id=3&gclid=1&lang=en&fbclid=2",
             "  https://WWW.example.com:443/docs/page//?id=3&utm_medium=m&lang=en#top \n",
         }) {
        EXPECT_EQ(canonicalUrl(u), canon) << u;
    }
}

// Nearly canonical URLs take a one-pass path; it must give what the general reading gives, for
// URLs built to sit on both sides of its conditions (scheme case, "www.", ports, userinfo,
// queries, fragments, trailing slashes and spaces, empty hosts and paths).
TEST(GatewayMergeCanonicalUrl, FastPathAgrees) {
    Rng rng(31);
    const char* const schemes[] = {"https://", "http://", "HTTPS://", "ftp://", "//", "", "https:/", "http://www."};
    const char* const hosts[] = {"a.com", "Example.com", "www.a.com", "www.", "a-b.c0m", "", "a.com:443",
                                 "a.com:80", "u@a.com", "[::1]", "a_b.com", "wwW.a.com", "a.com."};
    const std::string_view clean = "/aZ09-._~%/", any = "/aZ09-._~%?&=#/ \t:@";
    for (int n = 0; n < 30000; ++n) {
        std::string url;
        std::string_view bytes = any;
        if (n % 3 == 0) {
            // One the fast path takes: "http(s)://", a plain host, a path of plain bytes.
            url = n % 2 ? "https://" : "http://";
            url += hosts[rng.below(2) == 0 ? 0 : 4];
            url += '/';
            bytes = clean;
        } else {
            url = schemes[rng.below(std::size(schemes))];
            url += hosts[rng.below(std::size(hosts))];
            if (rng.below(2)) bytes = clean;
        }
        const std::size_t len = rng.below(12);
        for (std::size_t k = 0; k < len; ++k) url += bytes[rng.below(bytes.size())];
        if (rng.below(8) == 0) url += "?utm_source=x&id=2";
        if (rng.below(8) == 0) url = " " + url;
        ASSERT_EQ(canonicalUrl(url), detail::canonicalUrlGeneral(url)) << "'" << url << "'";
    }
}

// Validation reads most URLs in one pass; its verdict must be the general reading's.
TEST(GatewayValidation, HttpUrlFastPathAgrees) {
    Rng rng(32);
    const char* const starts[] = {"https://", "http://", "HTTP://", "https:/", "ftp://", " https://", "http://:", ""};
    const std::string_view bytes = "aZ09.-:@/?# \t";
    int valid = 0;
    for (int n = 0; n < 30000; ++n) {
        std::string url = starts[rng.below(std::size(starts))];
        const std::size_t len = rng.below(10);
        for (std::size_t k = 0; k < len; ++k) url += bytes[rng.below(rng.below(2) ? 4 : bytes.size())];
        const bool present = url.find_first_not_of(" \t") != std::string::npos;
        const bool general = present && !detail::isHttpUrlGeneral(url);
        ASSERT_EQ(itemMalformed(ResultRef("t", url, "s", 1.0), true), general) << "'" << url << "'";
        valid += !general && present;
    }
    EXPECT_GT(valid, 3000);  // well-formed URLs were many
}

TEST(GatewayMergeCanonicalUrl, WhatMustStayDistinct) {
    // Path case, parameter order and values, scheme, a non-default port all matter.
    EXPECT_NE(canonicalUrl("https://a.com/Docs"), canonicalUrl("https://a.com/docs"));
    EXPECT_NE(canonicalUrl("https://a.com/?a=1&b=2"), canonicalUrl("https://a.com/?b=2&a=1"));
    EXPECT_NE(canonicalUrl("https://a.com/?id=1"), canonicalUrl("https://a.com/?id=2"));
    EXPECT_NE(canonicalUrl("http://a.com/"), canonicalUrl("https://a.com/"));
    EXPECT_EQ(canonicalUrl("https://a.com:8443/x"), "https://a.com:8443/x");
    EXPECT_EQ(canonicalUrl("http://a.com:443/x"), "http://a.com:443/x");  // 443 is not http's
    EXPECT_EQ(canonicalUrl("http://a.com:80/x"), "http://a.com/x");
}

TEST(GatewayMergeCanonicalUrl, EdgeCases) {
    EXPECT_EQ(canonicalUrl("https://a.com"), "https://a.com/");
    EXPECT_EQ(canonicalUrl("https://a.com/"), "https://a.com/");
    EXPECT_EQ(canonicalUrl("https://a.com?utm_source=1"), "https://a.com/");
    EXPECT_EQ(canonicalUrl("https://a.com?q=1"), "https://a.com/?q=1");
    EXPECT_EQ(canonicalUrl("https://www./x"), "https://www./x");  // nothing after "www."
    EXPECT_EQ(canonicalUrl("https://wwwx.com/"), "https://wwwx.com/");
    EXPECT_EQ(canonicalUrl("https://User@WWW.A.com/"), "https://User@a.com/");
    EXPECT_EQ(canonicalUrl("http://[::1]:80/x"), "http://[::1]/x");
    EXPECT_EQ(canonicalUrl("http://[::1]:8080/x"), "http://[::1]:8080/x");
    EXPECT_EQ(canonicalUrl("https://a.com:/x"), "https://a.com/x");
    EXPECT_EQ(canonicalUrl("WWW.A.com/x/"), "a.com/x");
    EXPECT_EQ(canonicalUrl("/local/path/?ref_src=1"), "/local/path");
    EXPECT_EQ(canonicalUrl(""), "");
    EXPECT_EQ(canonicalUrl("#only-a-fragment"), "");
    // Idempotent.
    for (const char* u : {"HTTPS://WWW.A.COM:443/x/?utm_a=1&b=2#f", "a.com", "/p/", "http://[::1]"})
        EXPECT_EQ(canonicalUrl(canonicalUrl(u)), canonicalUrl(u)) << u;
}

// ---- mergeResults --------------------------------------------------------------------------

TEST(GatewayMergeResults, DedupesByCanonicalUrlKeepingTheBestScore) {
    const auto merged = mergeResults(
        {
            {item("https://a.com/x", 0.5, "a-first"), item("https://b.com/", 0.9, "b-first")},
            {item("https://www.a.com/x/?utm_source=s", 0.8, "a-second"),
             item("HTTPS://B.COM", 0.3, "b-second"), item("https://c.com/", 0.1, "c")},
        },
        10);
    ASSERT_EQ(merged.size(), 3u);
    EXPECT_EQ(merged[0].title, "b-first");
    EXPECT_EQ(merged[1].title, "a-second");  // the better score wins even from a later answer
    EXPECT_EQ(merged[1].url, "https://www.a.com/x/?utm_source=s");  // keeps its original url
    EXPECT_EQ(merged[2].title, "c");
}

TEST(GatewayMergeResults, TiesKeepTheEarlierAnswer) {
    const auto merged = mergeResults({{item("https://a.com/", 0.7, "from-0")},
                                      {item("https://a.com", 0.7, "from-1")},
                                      {item("https://www.a.com/", 0.7, "from-2")}},
                                     10);
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].title, "from-0");
    // Within one answer, the earlier position.
    const auto within = mergeResults(
        {{item("https://a.com/", 0.7, "pos-0"), item("https://a.com", 0.7, "pos-1")}}, 10);
    ASSERT_EQ(within.size(), 1u);
    EXPECT_EQ(within[0].title, "pos-0");
}

TEST(GatewayMergeResults, RanksByScoreThenCanonicalUrlAndSlices) {
    const std::vector<std::vector<ResultItem>> answers{
        {item("https://z.com/", 0.5), item("https://m.com/", 0.9)},
        {item("https://b.com/", 0.5), item("https://A.com/", 0.5), item("https://q.com/", 0.1)},
    };
    EXPECT_EQ(urls(mergeResults(answers, 10)),
              (std::vector<std::string>{"https://m.com/", "https://A.com/", "https://b.com/",
                                        "https://z.com/", "https://q.com/"}));
    EXPECT_EQ(urls(mergeResults(answers, 2)),
              (std::vector<std::string>{"https://m.com/", "https://A.com/"}));
    EXPECT_TRUE(mergeResults(answers, 0).empty());
    EXPECT_THROW(mergeResults(answers, -1), std::invalid_argument);
    EXPECT_TRUE(mergeResults(std::vector<std::vector<ResultItem>>{}, 10).empty());
}

TEST(GatewayMergeResults, OrderDoesNotDependOnAnswerOrderExceptForTies) {
    // Distinct URLs with distinct scores: any arrangement of the answers gives the same list.
    Rng rng(7, "test/gateway/merge-order");
    std::vector<ResultItem> pool;
    for (int i = 0; i < 40; ++i)
        pool.push_back(item("https://s" + std::to_string(i) + ".com/p", rng.uniform()));
    std::vector<std::vector<ResultItem>> a(3), b(3);
    for (std::size_t i = 0; i < pool.size(); ++i) {
        a[i % 3].push_back(pool[i]);
        b[2 - (i * 7) % 3].insert(b[2 - (i * 7) % 3].begin(), pool[i]);
    }
    const auto ma = mergeResults(a, 25), mb = mergeResults(b, 25);
    EXPECT_EQ(urls(ma), urls(mb));
    ASSERT_EQ(ma.size(), 25u);
    for (std::size_t i = 1; i < ma.size(); ++i) EXPECT_GE(ma[i - 1].score, ma[i].score);
}

// The rank order, against the rule written out: after dedupe (best score per canonical URL, ties
// to the earlier answer and position), by score, highest first, ties by canonical URL. Lists of
// up to 60 items with many ties and duplicates, on both sides of the 32 items up to which a
// ranking compares each item with the keys kept so far (by their last bytes first).
TEST(GatewayMergeResults, RankOrderFollowsTheRuleAtAnySize) {
    Rng rng(9, "test/gateway/merge-rule");
    const double scores[] = {1.0, 0.9, 0.7, 0.5, 0.0, -1.0};
    for (int round = 0; round < 400; ++round) {
        std::vector<std::vector<ResultItem>> answers(1 + rng.below(3));
        const std::size_t n = rng.below(61);
        for (std::size_t i = 0; i < n; ++i)
            answers[rng.below(answers.size())].push_back(
                item(rng.below(2) ? "https://s" + std::to_string(rng.below(40)) + ".com/" + (rng.below(2) ? "" : "/")
                                  // Keys of one size and one tail that differ further in.
                                  : "https://" + std::string(1, static_cast<char>('a' + rng.below(3))) +
                                        ".x/same-tail/" + std::to_string(rng.below(5)),
                     scores[rng.below(std::size(scores))], "t" + std::to_string(i)));
        struct Kept {
            std::string key;
            double score;
            std::string title;
        };
        std::vector<Kept> want;
        for (const auto& answer : answers)
            for (const ResultItem& it : answer) {
                const std::string key = canonicalUrl(it.url);
                const auto same = std::find_if(want.begin(), want.end(), [&](const Kept& k) { return k.key == key; });
                if (same == want.end()) want.push_back({key, it.score, it.title});
                else if (it.score > same->score) *same = {key, it.score, it.title};
            }
        std::sort(want.begin(), want.end(), [](const Kept& a, const Kept& b) {
            return a.score != b.score ? a.score > b.score : a.key < b.key;
        });
        const std::vector<ResultItem> got = mergeResults(answers, 100);
        ASSERT_EQ(got.size(), want.size()) << "round " << round;
        for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_EQ(got[i].title, want[i].title) << "round " << round << ", rank " << i;
    }
}

TEST(GatewayMergeResults, NanScoresRankLastAndEmptyUrlsAreDropped) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto merged = mergeResults(
        {{item("https://n.com/", nan), item("https://a.com/", -5), item("", 9), item("   ", 8)},
         {item("https://n.com/", 0.2, "real")}},
        10);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].title, "real");  // 0.2 beats NaN for the same URL
    EXPECT_EQ(merged[1].url, "https://a.com/");
    const auto with_nan =
        mergeResults({{item("https://n.com/", nan), item("https://a.com/", -1e300)}}, 10);
    ASSERT_EQ(with_nan.size(), 2u);
    EXPECT_EQ(with_nan[0].url, "https://a.com/");
    EXPECT_TRUE(std::isnan(with_nan[1].score));
}

TEST(GatewayMergeResults, ABodysRankingBorrowsItsItemsAndKeepsItAlive) {
    auto body = std::make_shared<ResultBody>(std::vector<ResultItem>{
        item("https://b.com/", 1), item("https://A.com/x/", 3), item("https://a.com/x", 2)});
    const ResultRef* first = &body->items()[1];
    std::shared_ptr<const RankedResults> ranked = body->ranked();
    EXPECT_EQ(ranked.get(), body->ranked().get());  // computed once, kept with the body
    std::weak_ptr<ResultBody> alive = body;
    body.reset();
    ASSERT_FALSE(alive.expired());  // the ranking holds its body
    ASSERT_EQ(ranked->size(), 2u);
    EXPECT_EQ(&(*ranked)[0], first);  // borrowed, not copied
    EXPECT_EQ((*ranked)[1].url, "https://b.com/");
    ranked.reset();
    EXPECT_TRUE(alive.expired());  // and no cycle keeps it after
}

// A body that takes a page's text keeps its items viewing its own bytes, wherever the move put
// them: a long text keeps its buffer, a short one (inside the string object) is copied, and the
// views follow either way. It judges as a copied body of the same items does.
TEST(GatewayMergeResults, ABodyTakingItsTextRebasesItsItemsOnIt) {
    const std::string texts[] = {"https://a.org/x|title one|a snippet|", "T|U|S"};
    for (const std::string& text : texts) {
        SCOPED_TRACE(text);
        std::vector<ResultRef> items;
        const std::size_t a = text.find('|'), b = text.find('|', a + 1), c = text.find('|', b + 1);
        const std::string_view v(text);
        items.emplace_back(v.substr(a + 1, b - a - 1), v.substr(0, a), v.substr(b + 1, c - b - 1),
                           0.5);
        items.emplace_back(std::string_view{}, v.substr(0, a), std::string_view{}, 0.25);
        const ResultBody copied(items, PageKind::Results);
        std::string moved = text;
        // `field` of `items`, viewing the same bytes of `moved` instead of `text`.
        const auto in = [&](std::string_view field) {
            if (field.empty()) return std::string_view{};
            const auto at = static_cast<std::size_t>(field.data() - text.data());
            return std::string_view(moved).substr(at, field.size());
        };
        std::vector<ResultRef> views;
        for (const ResultRef& r : items)
            views.emplace_back(in(r.title), in(r.url), in(r.snippet), r.score);
        const ResultBody took(std::move(moved), std::move(views), PageKind::Results,
                              ResultBody::Utf8Text{});
        moved.assign(moved.size() + 64, '#');  // whatever the moved-from string holds now
        ASSERT_EQ(took.items().size(), 2u);
        for (std::size_t i = 0; i < 2; ++i) {
            EXPECT_EQ(took.items()[i].title, copied.items()[i].title);
            EXPECT_EQ(took.items()[i].url, copied.items()[i].url);
            EXPECT_EQ(took.items()[i].snippet, copied.items()[i].snippet);
        }
        EXPECT_EQ(took.fingerprint(), copied.fingerprint());
        EXPECT_EQ(took.malformed(), copied.malformed());
        EXPECT_EQ(took.complete(), copied.complete());
    }
}

TEST(GatewayMergeResults, AMergeOfSeveralPagesHoldsThemAll) {
    auto a = std::make_shared<ResultBody>(std::vector<ResultItem>{item("https://a.com/", 1), item("https://c.com/", 5)});
    auto b = std::make_shared<ResultBody>(std::vector<ResultItem>{item("https://b.com/", 2), item("https://c.com/", 4)});
    std::weak_ptr<ResultBody> wa = a, wb = b;
    auto merged = mergeAnswers({a.get(), b.get()});
    a.reset();
    b.reset();
    ASSERT_EQ(merged->size(), 3u);
    EXPECT_EQ((*merged)[0].url, "https://c.com/");
    EXPECT_EQ((*merged)[0].score, 5);
    EXPECT_EQ((*merged)[2].url, "https://a.com/");
    merged.reset();
    EXPECT_TRUE(wa.expired() && wb.expired());
    // A body that no shared_ptr owns ranks into copies of its own.
    const ResultBody local(std::vector<ResultItem>{item("https://z.com/", 1)});
    const auto copy = local.ranked();
    ASSERT_EQ(copy->size(), 1u);
    EXPECT_NE(&(*copy)[0], &local.items()[0]);
    EXPECT_EQ((*copy)[0].url, "https://z.com/");
}

// ---- validation ----------------------------------------------------------------------------

std::vector<ResultItem> goodList() {
    return {item("https://a.com/1", 3, "One", "first"), item("https://a.com/2", 2, "Two", "second"),
            item("https://a.com/3", 1, "Three", "third")};
}

TEST(GatewayMergeValidate, AGoodListIsValid) {
    EXPECT_EQ(validateResults(goodList(), false, false, std::nullopt), Validity::Valid);
    EXPECT_EQ(validateResults(goodList(), false, false, resultsFingerprint(goodList()) + 1),
              Validity::Valid);
}

TEST(GatewayMergeValidate, EmptyUnlessZeroResultsAllowed) {
    EXPECT_EQ(validateResults({}, false, false, std::nullopt), Validity::Empty);
    EXPECT_EQ(validateResults({}, true, false, std::nullopt), Validity::Valid);
    // Two site: queries that both find nothing are not a cached block page.
    EXPECT_EQ(validateResults({}, true, false, resultsFingerprint(std::vector<ResultItem>{})), Validity::Valid);
}

TEST(GatewayMergeValidate, BlockPageWinsOverEverything) {
    EXPECT_EQ(validateResults(goodList(), false, true, std::nullopt), Validity::BlockPage);
    EXPECT_EQ(validateResults({}, true, true, std::nullopt), Validity::BlockPage);
}

TEST(GatewayMergeValidate, AtLeastHalfTheItemsMustBeComplete) {
    auto items = goodList();
    items.push_back(item("https://a.com/4", 0, "", "no title"));
    EXPECT_EQ(validateResults(items, false, false, std::nullopt), Validity::Valid);  // 3 of 4
    items[0].snippet = "  \t";
    EXPECT_EQ(validateResults(items, false, false, std::nullopt), Validity::Valid);  // 2 of 4
    items[1].url = "";
    EXPECT_EQ(validateResults(items, false, false, std::nullopt), Validity::Incomplete);  // 1 of 4
    EXPECT_EQ(validateResults({item("https://a.com/", 1, "", "")}, true, false, std::nullopt),
              Validity::Incomplete);
}

TEST(GatewayMergeValidate, MalformedItems) {
    const auto with = [](auto mutate) {
        auto items = goodList();
        mutate(items[1]);
        return validateResults(items, false, false, std::nullopt);
    };
    EXPECT_EQ(with([](ResultItem& i) { i.score = std::numeric_limits<double>::quiet_NaN(); }),
              Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.score = std::numeric_limits<double>::infinity(); }),
              Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.url = "/url?q=https://a.com/"; }), Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.url = "javascript:void(0)"; }), Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.url = "https:///nohost"; }), Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.title = "bad \xC3"; }), Validity::Malformed);
    EXPECT_EQ(with([](ResultItem& i) { i.url = "HTTP://A.COM/ok"; }), Validity::Valid);
}

TEST(GatewayMergeValidate, ByteIdenticalToAnotherQuerysAnswerIsADuplicate) {
    const auto items = goodList();
    const std::uint64_t fp = resultsFingerprint(items);
    EXPECT_EQ(validateResults(items, false, false, fp), Validity::DuplicateOfOtherQuery);
    // Any byte, the order or a score changes the fingerprint.
    std::set<std::uint64_t> fps{fp};
    auto changed = items;
    changed[2].snippet += ".";
    EXPECT_TRUE(fps.insert(resultsFingerprint(changed)).second);
    changed = items;
    std::swap(changed[0], changed[1]);
    EXPECT_TRUE(fps.insert(resultsFingerprint(changed)).second);
    changed = items;
    changed[0].score = 3.0000001;
    EXPECT_TRUE(fps.insert(resultsFingerprint(changed)).second);
    changed = items;
    changed.pop_back();
    EXPECT_TRUE(fps.insert(resultsFingerprint(changed)).second);
    // Fields cannot run into each other.
    const std::vector<ResultItem> x{item("https://a.com/", 1, "ab", "c")};
    const std::vector<ResultItem> y{item("https://a.com/", 1, "a", "bc")};
    EXPECT_NE(resultsFingerprint(x), resultsFingerprint(y));
    EXPECT_EQ(resultsFingerprint(goodList()), fp);  // deterministic
}

TEST(GatewayMergeValidate, Names) {
    EXPECT_STREQ(validityName(Validity::Valid), "valid");
    EXPECT_STREQ(validityName(Validity::Malformed), "malformed");
    EXPECT_STREQ(validityName(Validity::Empty), "empty");
    EXPECT_STREQ(validityName(Validity::BlockPage), "block_page");
    EXPECT_STREQ(validityName(Validity::Incomplete), "incomplete");
    EXPECT_STREQ(validityName(Validity::DuplicateOfOtherQuery), "duplicate_of_other_query");
}

}  // namespace
}  // namespace taillab::gateway
