// writeFileAtomically: the target holds the old bytes or the new ones, never a part, and no
// temporary is left behind whether the write succeeds or fails.
#include "io/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>

#include "cli_support.h"

namespace taillab {
namespace {

namespace fs = std::filesystem;
using test::readFile;

class AtomicFile : public test::ScratchDirTest {
protected:
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

TEST_F(AtomicFile, CreatesTheFileWithExactlyTheBytes) {
    const std::string bytes("line one\n\0binary\xff", 17);
    writeFileAtomically(path("a.json"), bytes);
    EXPECT_EQ(readFile(path("a.json")), bytes);
    writeFileAtomically(path("empty"), "");
    EXPECT_TRUE(fs::exists(path("empty")));
    EXPECT_EQ(fs::file_size(path("empty")), 0u);
}

TEST_F(AtomicFile, ReplacesTheWholeFileAndLeavesNoTemporary) {
    writeFileAtomically(path("a.json"), std::string(100000, 'x'));
    writeFileAtomically(path("a.json"), "short");
    EXPECT_EQ(readFile(path("a.json")), "short");
    EXPECT_EQ(entries(), std::vector<std::string>{"a.json"});
}

// Parts go to the temporary as they come (the target keeps its old bytes until the commit), and
// a writer dropped before its commit leaves the old file and no temporary.
TEST_F(AtomicFile, AWriterInPartsReplacesTheFileOnlyAtItsCommit) {
    writeFileAtomically(path("log.hlog"), "old\n");
    {
        AtomicFileWriter w(path("log.hlog"));
        w.append("header\n");
        w.append(std::string(1 << 20, 'x'));
        EXPECT_EQ(readFile(path("log.hlog")), "old\n");
        EXPECT_EQ(entries().size(), 2u);  // the target and the temporary beside it
        std::uintmax_t parts = 0;
        for (const auto& e : fs::directory_iterator(dir_))
            if (e.path().filename() != "log.hlog") parts = fs::file_size(e.path());
        EXPECT_EQ(parts, 7u + (1u << 20));  // on disk already, not held in memory
        w.append("end\n");
        w.commit();
    }
    EXPECT_EQ(readFile(path("log.hlog")), "header\n" + std::string(1 << 20, 'x') + "end\n");
    EXPECT_EQ(entries(), std::vector<std::string>{"log.hlog"});
    {
        AtomicFileWriter dropped(path("log.hlog"));
        dropped.append("never committed");
    }
    EXPECT_EQ(readFile(path("log.hlog")).substr(0, 7), "header\n");
    EXPECT_EQ(entries(), std::vector<std::string>{"log.hlog"});
}

TEST_F(AtomicFile, KeepsAnExistingFilesPermissions) {
    writeFileAtomically(path("a.json"), "old");
    fs::permissions(path("a.json"),
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    writeFileAtomically(path("a.json"), "new");
    EXPECT_EQ(fs::status(path("a.json")).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(AtomicFile, AMissingDirectoryIsAnErrorNamingThePathAndTheCause) {
    const std::string target = path("no/such/dir/a.json");
    try {
        writeFileAtomically(target, "x");
        ADD_FAILURE() << "expected an error";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cannot write " + target), std::string::npos) << what;
        EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
    }
    EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicFile, AReadOnlyDirectoryLeavesTheOldFileAsItWas) {
    if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
    writeFileAtomically(path("a.json"), "old");
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(writeFileAtomically(path("a.json"), "new"), std::runtime_error);
    fs::permissions(dir_, fs::perms::owner_all);
    EXPECT_EQ(readFile(path("a.json")), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"a.json"});
}

// The rename is the last step that can fail: the temporary written by then must go too. (A
// directory that takes the name while the bytes are written makes it fail.)
TEST_F(AtomicFile, AFailedRenameRemovesTheTemporary) {
    try {
        AtomicFileWriter file(path("taken"));
        file.append("x");
        fs::create_directories(path("taken/inside"));
        file.commit();
        ADD_FAILURE() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("renaming into place"), std::string::npos) << e.what();
    }
    EXPECT_EQ(entries(), std::vector<std::string>{"taken"});
    EXPECT_TRUE(fs::is_directory(path("taken/inside")));
}

TEST_F(AtomicFile, AWriteThatFailsHalfWayLeavesTheOldFileAsItWas) {
    writeFileAtomically(path("a.json"), "old");
    struct rlimit saved {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = saved;
    small.rlim_cur = 1000;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    std::string error;
    try {
        writeFileAtomically(path("a.json"), std::string(100000, 'x'));
    } catch (const std::runtime_error& e) {
        error = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, oldHandler);
    EXPECT_NE(error.find("(writing): File too large"), std::string::npos) << error;
    EXPECT_EQ(readFile(path("a.json")), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"a.json"});
}

TEST_F(AtomicFile, AWriterThatTakesAFileNameGetsATemporaryBesideTheTarget) {
    writeFileAtomically(path("chart.pdf"), "old");
    std::string seen;
    writeFileAtomicallyWith(path("chart.pdf"), [&](const std::string& temporary) {
        seen = temporary;
        std::ofstream(temporary) << "new";
        return true;
    });
    EXPECT_EQ(fs::path(seen).parent_path(), dir_);
    EXPECT_EQ(readFile(path("chart.pdf")), "new");
    EXPECT_EQ(entries(), std::vector<std::string>{"chart.pdf"});
}

TEST_F(AtomicFile, AWriterThatFailsLeavesTheOldFileAndNoTemporary) {
    writeFileAtomically(path("chart.png"), "old");
    EXPECT_THROW(writeFileAtomicallyWith(path("chart.png"),
                                         [](const std::string& temporary) {
                                             std::ofstream(temporary) << "half";
                                             return false;
                                         }),
                 std::runtime_error);
    EXPECT_EQ(readFile(path("chart.png")), "old");
    EXPECT_EQ(entries(), std::vector<std::string>{"chart.png"});
}

// What is not a regular file is written to in place: a rename would put a plain file where a
// FIFO, a device (/dev/null, as root) or a shell's >(...) was.
TEST_F(AtomicFile, AFifoIsWrittenToAndStaysAFifo) {
    const std::string fifo = path("out.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The reading end first (without waiting for a writer), so the write's open does not block.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    writeFileAtomically(fifo, "through the pipe\n");
    char got[64] = {};
    const ssize_t n = ::read(reader, got, sizeof got);
    ::close(reader);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(entries(), std::vector<std::string>{"out.fifo"});
}

// A link to a regular file stays a link; its target gets the new bytes.
TEST_F(AtomicFile, ALinkIsFollowedToTheFileItNames) {
    writeFileAtomically(path("real.json"), "old");
    fs::create_symlink("real.json", path("link.json"));
    writeFileAtomically(path("link.json"), "new");
    EXPECT_TRUE(fs::is_symlink(path("link.json")));
    EXPECT_EQ(readFile(path("real.json")), "new");
    EXPECT_EQ(entries(), (std::vector<std::string>{"link.json", "real.json"}));
}

// A link to a file not written yet leads to it: the file is created there, the link stays.
TEST_F(AtomicFile, ALinkToAFileNotYetWrittenCreatesIt) {
    fs::create_directory(path("real"));
    fs::create_symlink("real/res.json", path("dangling.json"));
    writeFileAtomically(path("dangling.json"), "new");
    EXPECT_TRUE(fs::is_symlink(path("dangling.json")));
    EXPECT_EQ(readFile(path("real/res.json")), "new");
}

// A socket cannot be opened for writing: refused when the target is sorted, before any work.
TEST_F(AtomicFile, ASocketIsAnError) {
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(s, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string where = path("s.sock");
    ASSERT_LT(where.size(), sizeof addr.sun_path);
    std::memcpy(addr.sun_path, where.c_str(), where.size() + 1);
    ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_THROW(writeTarget(where), std::system_error);
    ::close(s);
}

TEST_F(AtomicFile, ADirectoryIsAnError) {
    fs::create_directory(path("d"));
    try {
        writeFileAtomically(path("d"), "x");
        ADD_FAILURE() << "expected an error";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_directory(path("d")));
}

}  // namespace
}  // namespace taillab
