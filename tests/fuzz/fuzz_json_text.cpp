// Fuzz target: readJson (live/json_text.h), the reader of every engine page and search body the
// live gateway takes off the network, against nlohmann's parser as the reference.
//
// Both read the same bytes as events. They must agree on whether the text is JSON and, when it
// is, on every event: the same strings and keys byte for byte, the same numbers (nlohmann's
// integer or correctly rounded double against readJson's double; a float's lexeme against
// readJson's literal), in the same order. An accepted document written back with json_text's own
// writers must read back to the same events. A disagreement aborts with both event lists.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "live/json_text.h"

namespace {

using taillab::fuzz::check;

// One event as text: kind, then its value ("s:abc", "n:1.5|1.5", "{", "}", ...). Numbers carry
// their double (printed with %a, exact) and, for floats, the lexeme as written.
using Events = std::vector<std::string>;

std::string hexDouble(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v == 0 ? 0.0 : v);  // -0 and 0 read alike
    return buf;
}

bool isInteger(std::string_view literal) {
    return literal.find_first_of(".eE") == std::string_view::npos;
}

class Ours final : public taillab::live::JsonEvents {
  public:
    Events events;
    // Also written back as JSON text with json_text's writers.
    std::string written;
    void null() override { add("null", "null"); }
    void boolean(bool v) override { add(v ? "true" : "false", v ? "true" : "false"); }
    void number(double v, std::string_view literal) override {
        events.push_back("n:" + hexDouble(v) +
                         (isInteger(literal) ? "" : "|" + std::string(literal)));
        separate();
        taillab::live::appendJsonNumber(written, v);
        after_value();
    }
    void string(std::string_view v) override {
        events.push_back("s:" + std::string(v));
        separate();
        taillab::live::appendJsonString(written, v);
        after_value();
    }
    void key(std::string_view k) override {
        events.push_back("k:" + std::string(k));
        separate();
        taillab::live::appendJsonString(written, k);
        written += ':';
        need_comma_.back() = false;  // the value follows the colon
    }
    void startObject() override { open("{"); }
    void endObject() override { close("}"); }
    void startArray() override { open("["); }
    void endArray() override { close("]"); }

  private:
    void add(const char* event, const char* text) {
        events.emplace_back(event);
        separate();
        written += text;
        after_value();
    }
    void separate() {
        if (!need_comma_.empty() && need_comma_.back()) written += ',';
    }
    void after_value() {
        if (!need_comma_.empty()) need_comma_.back() = true;
    }
    void open(const char* c) {
        events.emplace_back(c);
        separate();
        written += c;
        need_comma_.push_back(false);
    }
    void close(const char* c) {
        events.emplace_back(c);
        written += c;
        need_comma_.pop_back();
        after_value();
    }
    std::vector<bool> need_comma_;
};

// nlohmann's SAX events in the same form.
struct Reference : nlohmann::json::json_sax_t {
    Events events;
    bool null() override { return add("null"); }
    bool boolean(bool v) override { return add(v ? "true" : "false"); }
    bool number_integer(number_integer_t v) override {
        return add("n:" + hexDouble(static_cast<double>(v)));
    }
    bool number_unsigned(number_unsigned_t v) override {
        return add("n:" + hexDouble(static_cast<double>(v)));
    }
    bool number_float(number_float_t v, const string_t& lexeme) override {
        // nlohmann reads an integer too large for 64 bits as a float, without changing the lexeme.
        return add("n:" + hexDouble(v) + (isInteger(lexeme) ? "" : "|" + lexeme));
    }
    bool string(string_t& v) override { return add("s:" + v); }
    bool binary(binary_t&) override { return add("binary"); }
    bool start_object(std::size_t) override { return add("{"); }
    bool key(string_t& k) override { return add("k:" + k); }
    bool end_object() override { return add("}"); }
    bool start_array(std::size_t) override { return add("["); }
    bool end_array() override { return add("]"); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    bool add(std::string e) {
        events.push_back(std::move(e));
        return true;
    }
};

std::string listed(const Events& e) {
    std::string out;
    for (const std::string& s : e) out += "  " + s + "\n";
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = taillab::fuzz::inputText(data, size);
    Ours ours;
    const bool ok = !taillab::live::readJson(text, ours).has_value();
    Reference ref;
    // nlohmann's lexer takes a NUL byte for the end of the input (it accepts "1\0x"); JSON allows
    // none anywhere (not as white space, not raw in a string), so such a text is never JSON.
    const bool refOk =
        text.find('\0') == std::string::npos &&
        nlohmann::json::sax_parse(text, &ref, nlohmann::json::input_format_t::json, true);
    check(ok == refOk,
          ok ? "readJson accepts what nlohmann refuses" : "readJson refuses what nlohmann accepts",
          "readJson events:\n" + listed(ours.events) + "nlohmann events:\n" + listed(ref.events));
    if (!ok) return 0;
    check(ours.events == ref.events, "readJson's events differ from nlohmann's",
          "readJson:\n" + listed(ours.events) + "nlohmann:\n" + listed(ref.events));
    // Written back with json_text's writers, the document reads back to the same events (numbers
    // as doubles: the writer writes the shortest form, so a float's lexeme may change).
    Ours again;
    check(!taillab::live::readJson(ours.written, again).has_value(),
          "the written-back document is not JSON", ours.written);
    auto values = [](Events e) {
        for (std::string& s : e)
            if (s.rfind("n:", 0) == 0) s = s.substr(0, s.find('|'));
        return e;
    };
    check(values(again.events) == values(ours.events),
          "the written-back document reads back different", ours.written);
    return 0;
}
