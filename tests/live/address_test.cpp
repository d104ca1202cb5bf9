#include "live/address.h"

#include <gtest/gtest.h>

#include <string>

#include "error_of.h"

namespace taillab::live {
namespace {

using test::errorOf;

TEST(LiveAddress, ListenForms) {
    EXPECT_EQ(parseListen("127.0.0.1:8080"), (HostPort{"127.0.0.1", 8080}));
    EXPECT_EQ(parseListen("localhost:0"), (HostPort{"127.0.0.1", 0}));
    EXPECT_EQ(parseListen(":9000"), (HostPort{"127.0.0.1", 9000}));
    EXPECT_EQ(parseListen("9001"), (HostPort{"127.0.0.1", 9001}));
    EXPECT_EQ(parseListen("0.0.0.0:80"), (HostPort{"0.0.0.0", 80}));
}

TEST(LiveAddress, LoopbackIsAll127Addresses) {
    EXPECT_TRUE(isLoopback(parseListen("127.0.0.1:8080")));
    EXPECT_TRUE(isLoopback(parseListen("localhost:0")));
    EXPECT_TRUE(isLoopback(parseListen("127.1.2.3:0")));
    EXPECT_FALSE(isLoopback(parseListen("0.0.0.0:80")));
    EXPECT_FALSE(isLoopback(parseListen("192.168.1.10:80")));
    EXPECT_FALSE(isLoopback(parseListen("128.0.0.1:80")));
}

TEST(LiveAddress, ListenErrorsSayWhatIsWrong) {
    EXPECT_NE(errorOf([] { parseListen("127.0.0.1:99999"); }).find("port must be a number from 0 to 65535, not '99999'"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseListen("example.com:80"); }).find("dotted IPv4 address or localhost"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseListen("127.0.0.256:80"); }).find("'127.0.0.256'"), std::string::npos);
    EXPECT_NE(errorOf([] { parseListen("127.0.0.1:"); }).find("not ''"), std::string::npos);
    EXPECT_NE(errorOf([] { parseListen("1.2.3:80"); }).find("listen address '1.2.3:80'"), std::string::npos);
}

TEST(LiveAddress, UrlForms) {
    const Url u = parseUrl("http://127.0.0.1:8081/search/lite?x=1");
    EXPECT_EQ(u.at, (HostPort{"127.0.0.1", 8081}));
    EXPECT_EQ(u.target, "/search/lite?x=1");
    EXPECT_EQ(parseUrl("http://localhost").at, (HostPort{"127.0.0.1", 80}));
    EXPECT_EQ(parseUrl("http://localhost").target, "/");
    EXPECT_EQ(parseUrl("http://10.0.0.1:9?q").target, "/?q");
    EXPECT_EQ(toString(u), "http://127.0.0.1:8081/search/lite?x=1");
}

TEST(LiveAddress, UrlErrorsSayWhatIsWrong) {
    EXPECT_NE(errorOf([] { parseUrl("https://127.0.0.1/"); }).find("plain HTTP"), std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("127.0.0.1:80/"); }).find("must start with http://"), std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http://u:p@127.0.0.1/"); }).find("user name"), std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http:///x"); }).find("names no host"), std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http://127.0.0.1:0/"); }).find("port 0"), std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http://api.example.com/"); }).find("'api.example.com'"), std::string::npos);
    // A path goes into the request line as it is: what would break or change that line is refused.
    EXPECT_NE(errorOf([] { parseUrl("http://127.0.0.1:80/a b"); }).find("byte 0x20 at offset 21"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http://127.0.0.1:80/a\r\nX-Injected: yes"); }).find("byte 0x0D"),
              std::string::npos);
    EXPECT_NE(errorOf([] { parseUrl("http://127.0.0.1:80/a#top"); }).find("byte 0x23"), std::string::npos);
    EXPECT_EQ(parseUrl("http://127.0.0.1:80/a%20b/~x?q=1&r=(2);s=@:").target, "/a%20b/~x?q=1&r=(2);s=@:");
}

}  // namespace
}  // namespace taillab::live
