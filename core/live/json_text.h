// JSON text written straight into a string, for the replies the gateway and the fleet write on
// every request. Building a DOM (nlohmann::json) to dump it at once costs a map node and a string
// per field: at a thousand requests a second that was about a tenth of the gateway's CPU.
//
// Strings are escaped as JSON requires (quote, backslash, control characters); bytes that are
// not UTF-8 are written as U+FFFD, one for each byte that does not start or continue a valid
// sequence, so a query that is not UTF-8 never makes a reply that is not JSON. Numbers are written
// in their shortest form that reads back to the same double; a value that is not finite (JSON has
// none) is written as null.
//
// And JSON text read as a stream of events (readJson), for the engine pages the gateway reads on
// every upstream answer: strict RFC 8259 (UTF-8 only, no comments, no trailing commas, nothing
// after the value, a number beyond the largest double refused; a leading byte order mark is
// skipped), iterative (nesting depth costs heap, never stack), strings scanned a run at a
// time. nlohmann's SAX reader did the same at about five times the cost.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace taillab::live {

void appendJsonString(std::string& out, std::string_view s);
// `s` is written in JSON as it is: printable ASCII other than quote and backslash.
bool jsonPlain(std::string_view s);
void appendJsonNumber(std::string& out, double v);
void appendJsonNumber(std::string& out, std::int64_t v);

// The same writers through a cursor, for a caller that reserves room once for many values (the
// search response's items) instead of growing a string a piece at a time. Each writes at `p`,
// which has room for the bound, and returns the end of what it wrote; the bytes are exactly
// those of the append functions above.
// A string of n bytes takes at most six bytes each ("\u001f"), and its quotes.
constexpr std::size_t jsonStringBound(std::size_t n) { return 6 * n + 2; }
char* putJsonString(char* p, std::string_view s);
constexpr std::size_t kJsonNumberBound = 32;  // to_chars' longest double is 24 bytes
char* putJsonNumber(char* p, double v);

// One object written field by field: {"a": 1, "b": "x"}.
class JsonObjectWriter {
public:
    explicit JsonObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
    JsonObjectWriter& field(std::string_view key, std::string_view value) {
        name(key);
        appendJsonString(out_, value);
        return *this;
    }
    JsonObjectWriter& field(std::string_view key, const char* value) {
        return field(key, std::string_view(value));
    }
    JsonObjectWriter& field(std::string_view key, double value) {
        name(key);
        appendJsonNumber(out_, value);
        return *this;
    }
    JsonObjectWriter& field(std::string_view key, int value) {
        name(key);
        appendJsonNumber(out_, static_cast<std::int64_t>(value));
        return *this;
    }
    JsonObjectWriter& field(std::string_view key, bool value) {
        name(key);
        out_ += value ? "true" : "false";
        return *this;
    }
    // Starts a field whose value the caller writes itself (an array, a nested object).
    std::string& raw(std::string_view key) {
        name(key);
        return out_;
    }
    void close() { out_ += '}'; }

private:
    // Keys are the program's own names, which need no escaping: written as they are.
    void name(std::string_view key) {
        assert(jsonPlain(key));
        out_ += first_ ? "\"" : ",\"";
        first_ = false;
        out_.append(key);
        out_ += "\":";
    }
    std::string& out_;
    bool first_ = true;
};

// What readJson reports, in document order. A string or key is a view that lives until the next
// event: into the text itself when the string has no escapes (most do, so reading them copies
// nothing), else into the reader's buffer for the unescaped bytes.
class JsonEvents {
public:
    virtual ~JsonEvents() = default;
    virtual void null() = 0;
    virtual void boolean(bool v) = 0;
    // `literal` is the number as written (an integer when it has no '.', 'e' or 'E'); below the
    // smallest double, `v` is (nearly) 0.
    virtual void number(double v, std::string_view literal) = 0;
    virtual void string(std::string_view v) = 0;
    virtual void key(std::string_view k) = 0;
    virtual void startObject() = 0;
    virtual void endObject() = 0;
    virtual void startArray() = 0;
    virtual void endArray() = 0;
};

// Reads `text` as one JSON value, reporting its events. Returns nullopt when the text is JSON;
// otherwise the byte (1-based; size + 1 for an early end) where reading stopped, and no events
// follow that point.
std::optional<std::size_t> readJson(std::string_view text, JsonEvents& events);

// Where and why a request's body is not JSON, as an editor points at it: "the body is not valid
// JSON at line 2, column 19: unexpected '}'", or "...: it ends early". `stop` is where readJson
// stopped. The one wording of the gateway and the fleet.
std::string notJsonMessage(std::string_view body, std::size_t stop);
// The same, reading `body` to find where: nullopt when it is JSON.
std::optional<std::string> notJsonMessage(std::string_view body);

}  // namespace taillab::live
