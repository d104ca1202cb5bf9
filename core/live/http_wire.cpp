#include "live/http_wire.h"

#include <boost/beast/http.hpp>
#include <charconv>
#include <cstring>
#include <sstream>

#include "live/ascii.h"

namespace taillab::live {

namespace http = boost::beast::http;

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Beast stores a field's value without the spaces and tabs around it.
bool untrimmed(std::string_view value) {
    return !value.empty() && (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' ||
                              value.back() == '\t');
}

// Headers the plain writers can copy as they are, in order: none that Beast manages itself (its
// rules for Connection, Content-Length and Transfer-Encoding rewrite them), none it would trim,
// and no name twice (a response's set() keeps the last one and moves it to the end; a request's
// insert() puts a repeated name next to its first).
bool plainHeaders(const Headers& headers) {
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const auto& [name, value] = headers[i];
        if (equalsIgnoringCase(name, "Connection") || equalsIgnoringCase(name, "Content-Length") ||
            equalsIgnoringCase(name, "Transfer-Encoding") || untrimmed(value))
            return false;
        for (std::size_t j = i + 1; j < headers.size(); ++j)
            if (equalsIgnoringCase(name, headers[j].first)) return false;
    }
    return true;
}

bool hasHeader(const Headers& headers, std::string_view name) {
    for (const auto& h : headers)
        if (equalsIgnoringCase(h.first, name)) return true;
    return false;
}

// "name: value\r\n" in one append: a response has several fields, and four appends each (two
// of them of C strings, measured by strlen) were most of writing its header block.
void appendField(std::string& out, std::string_view name, std::string_view value) {
    const std::size_t at = out.size();
    out.resize(at + name.size() + value.size() + 4);
    char* p = out.data() + at;
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    *p++ = ':';
    *p++ = ' ';
    std::memcpy(p, value.data(), value.size());
    p += value.size();
    *p++ = '\r';
    *p = '\n';
}

void appendContentLength(std::string& out, std::size_t n) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    appendField(out, "Content-Length", std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

template <class Message>
void serialize(std::string& out, const Message& m) {
    std::ostringstream os;
    os << m;
    out = std::move(os).str();
}

}  // namespace

bool plainResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive) {
    // 1xx, 204 and 304 carry no body (Beast refuses one); a code past 999 is refused too.
    const int status = reply.status;
    if (status < 200 || status > 999 || status == 204 || status == 304) return false;
    if (!plainHeaders(reply.headers)) return false;

    out.clear();
    out.reserve(160 + reply.body.size());
    const char code[] = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ', char('0' + status / 100),
                         char('0' + status / 10 % 10), char('0' + status % 10), ' '};
    out.append(code, sizeof code);
    const auto reason = http::obsolete_reason(static_cast<http::status>(status));
    out.append(reason.data(), reason.size());
    out.append("\r\n");
    // A reply's own Content-Type replaces the default where the reply puts it.
    if (!hasHeader(reply.headers, "Content-Type")) appendField(out, "Content-Type", "application/json");
    for (const auto& [name, value] : reply.headers) appendField(out, name, value);
    if (!keep_alive) appendField(out, "Connection", "close");
    appendContentLength(out, reply.body.size());
    out.append("\r\n");
    out.append(reply.body);
    return true;
}

void beastResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive) {
    http::response<http::string_body> res;
    res.version(11);
    res.result(static_cast<unsigned>(reply.status));
    res.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : reply.headers) res.set(k, v);
    res.body() = reply.body;
    res.keep_alive(keep_alive);
    res.prepare_payload();
    serialize(out, res);
}

void writeResponseBytes(std::string& out, const HttpReply& reply, bool keep_alive) {
    if (!plainResponseBytes(out, reply, keep_alive)) beastResponseBytes(out, reply, keep_alive);
}

bool plainRequestBytes(std::string& out, const HttpRequest& request, std::string_view host) {
    // A method Beast does not know is written as given, and TRACE refuses a body: leave both to it.
    const http::verb verb = http::string_to_verb(request.method);
    if (verb == http::verb::unknown || verb == http::verb::trace) return false;
    if (!plainHeaders(request.headers)) return false;

    out.clear();
    out.reserve(200 + request.target.size() + request.body.size());
    out.append(request.method);
    out.append(" ");
    out.append(request.target);
    out.append(" HTTP/1.1\r\n");
    // insert(), not set(): every header as given, in order.
    for (const auto& [name, value] : request.headers) appendField(out, name, value);
    if (!hasHeader(request.headers, "Host")) appendField(out, "Host", host);
    if (!hasHeader(request.headers, "User-Agent")) appendField(out, "User-Agent", "taillab");
    if (!request.body.empty() || verb == http::verb::post || verb == http::verb::put)
        appendContentLength(out, request.body.size());
    out.append("\r\n");
    out.append(request.body);
    return true;  // no Connection header: HTTP/1.1 keeps the connection
}

bool beastRequestBytes(std::string& out, const HttpRequest& request, std::string_view host) {
    http::request<http::string_body> m;
    const http::verb verb = http::string_to_verb(request.method);
    if (verb == http::verb::unknown) {
        m.method_string(request.method);
    } else {
        m.method(verb);
    }
    m.target(request.target);
    m.version(11);
    for (const auto& [name, value] : request.headers) m.insert(name, value);
    if (m.find(http::field::host) == m.end()) m.set(http::field::host, boost::beast::string_view(host.data(), host.size()));
    if (m.find(http::field::user_agent) == m.end()) m.set(http::field::user_agent, "taillab");
    m.body() = request.body;
    if (!m.body().empty() || verb == http::verb::post || verb == http::verb::put) m.prepare_payload();
    serialize(out, m);
    return m.keep_alive();
}

bool keepAliveOf(const HttpHeaders& headers, int version) {
    for (const auto& [name, value] : headers) {
        if (!equalsIgnoringCase(name, "Connection")) continue;
        http::token_list tokens{boost::beast::string_view(value.data(), value.size())};
        return version < 11 ? tokens.exists("keep-alive") : !tokens.exists("close");
    }
    return version >= 11;
}

bool writeRequestBytes(std::string& out, const HttpRequest& request, std::string_view host) {
    if (plainRequestBytes(out, request, host)) return true;
    return beastRequestBytes(out, request, host);
}

}  // namespace taillab::live
