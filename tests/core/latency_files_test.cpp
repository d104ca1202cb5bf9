// The latency files read whole (interval logs, percentile distributions), as taillab-cli hdr and
// the GUI's overlay both read them: the size limit checked before a byte is read, and errors
// that name the file and the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "cli_support.h"
#include "io/latency_files.h"

namespace taillab {
namespace {

class LatencyFiles : public test::ScratchDirTest {
  protected:
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }
    static std::string messageOf(const std::function<void()>& read) {
        try {
            read();
        } catch (const LatencyFileError& e) {
            return e.what();
        }
        return "(no error)";
    }
};

TEST_F(LatencyFiles, AFileOverItsLimitIsRefusedNamingItsSizeAndTheLimit) {
    HdrHistogram h;
    h.record(100);
    const HdrLogWriter writer(0);
    const std::string log = write("a.hlog", writer.header() + writer.interval(0, 1, h));
    const auto size = std::filesystem::file_size(log);
    EXPECT_EQ(readHdrLogFile(log, size).intervals.size(), 1u);  // at the limit: read
    EXPECT_EQ(messageOf([&] { readHdrLogFile(log, size - 1); }),
              log + ": is " + std::to_string(size) + " bytes; a log of intervals may be at most " +
                  std::to_string(size - 1) + " bytes");
    const std::string hgrm = write("a.hgrm", "1.0 0.5 1 2.0\n2.0 1.0 2 inf\n");
    EXPECT_EQ(readHgrmFile(hgrm).size(), 2u);
    EXPECT_EQ(messageOf([&] { readHgrmFile(hgrm, 8); }),
              hgrm + ": is 28 bytes; a percentile distribution may be at most 8 bytes");
    EXPECT_EQ(messageOf([&] { readHdrLogFile(path("missing.hlog")); }),
              path("missing.hlog") + ": cannot open: No such file or directory");
    EXPECT_EQ(messageOf([&] { readHgrmFile(path("missing.hgrm")); }),
              path("missing.hgrm") + ": cannot open: No such file or directory");
}

TEST_F(LatencyFiles, ContentErrorsNameTheFileAndLine) {
    const std::string log = write("bad.hlog", HdrLogWriter(0).header() + "0.000,1.000,1.0,not-base64!\n");
    EXPECT_EQ(messageOf([&] { readHdrLogFile(log); }).rfind(log + ":5: ", 0), 0u)
        << messageOf([&] { readHdrLogFile(log); });
    const std::string hgrm = write("bad.hgrm", "1.0 0.5 1 2.0\n2.0 0.4 2 2.0\n");
    EXPECT_EQ(messageOf([&] { readHgrmFile(hgrm); }),
              hgrm + ":2:5: the percentile goes down from the row before");
}

}  // namespace
}  // namespace taillab
