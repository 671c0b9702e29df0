#include "io/textfile.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace archipelago::core {

namespace {

// Read in pieces: the size from stat is only a hint (it may be 0 for files of /proc, or change
// while reading), so the bound is enforced on what is actually read.
constexpr std::size_t kChunkBytes = 1u << 16;

} // namespace

std::optional<std::string> readTextFile(const std::string& path, DiagnosticSink& sink,
                                        std::string_view kind)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        sink.error({}, "cannot open the file: " +
                           (ec ? ec.message() : std::string("no such file or directory")));
        return std::nullopt;
    }
    if (fs::is_directory(status)) {
        sink.error({}, "is a directory, expected " + std::string(kind));
        return std::nullopt;
    }
    // A named pipe would block the read until a writer comes, a device may never end.
    if (!fs::is_regular_file(status)) {
        sink.error({},
                   "is not a regular file (a pipe or a device?), expected " + std::string(kind));
        return std::nullopt;
    }
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxFileBytes) {
        sink.error({}, "the file is " + std::to_string(size) + " bytes, larger than the " +
                           std::to_string(kMaxFileBytes) + " bytes " + std::string(kind) +
                           " may have");
        return std::nullopt;
    }
    std::string text;
    try {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            sink.error({}, "cannot open the file for reading");
            return std::nullopt;
        }
        text.reserve(ec ? kChunkBytes : static_cast<std::size_t>(size) + 1);
        // One byte past the bound tells a file at the limit from one beyond it.
        while (text.size() <= kMaxFileBytes) {
            const std::size_t want = std::min(kChunkBytes, kMaxFileBytes + 1 - text.size());
            const std::size_t had = text.size();
            text.resize(had + want);
            in.read(text.data() + had, static_cast<std::streamsize>(want));
            text.resize(had + static_cast<std::size_t>(in.gcount()));
            if (!in)
                break;
        }
        if (in.bad()) {
            sink.error({}, "error while reading the file");
            return std::nullopt;
        }
    } catch (const std::exception& ex) {
        sink.error({}, std::string("cannot read the file: ") + ex.what());
        return std::nullopt;
    }
    if (text.size() > kMaxFileBytes) {
        sink.error({}, "the file is larger than the " + std::to_string(kMaxFileBytes) + " bytes " +
                           std::string(kind) + " may have; refusing to read it");
        return std::nullopt;
    }
    return text;
}

namespace {

// Writes all of `text` to `fd` (retrying short writes and EINTR), flushes it to disk when
// `sync`, and closes it; 0 or the first errno.
int writeAndClose(int fd, std::string_view text, bool sync)
{
    int failure = 0;
    const char* next = text.data();
    std::size_t left = text.size();
    while (left > 0 && failure == 0) {
        const ssize_t n = ::write(fd, next, left);
        if (n < 0) {
            if (errno != EINTR)
                failure = errno;
            continue;
        }
        next += n;
        left -= static_cast<std::size_t>(n);
    }
    if (failure == 0 && sync && ::fsync(fd) != 0)
        failure = errno;
    if (::close(fd) != 0 && failure == 0)
        failure = errno;
    return failure;
}

std::string errnoText(int code)
{
    return std::error_code(code, std::generic_category()).message();
}

// A character device (/dev/null, /dev/stdout, a terminal) or a named pipe: written through,
// as the shell's `>` does; nothing to make atomic and nothing to replace. A pipe nobody reads
// is refused at once rather than blocking (open(2), O_NONBLOCK on a FIFO: ENXIO).
bool writeThrough(const std::string& path, bool fifo, std::string_view text, std::string& error)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
    if (fd < 0) {
        const int code = errno;
        error = fifo && code == ENXIO ? std::string("a named pipe that no process reads")
                                      : errnoText(code);
        return false;
    }
    if (fifo)
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const int failure = writeAndClose(fd, text, false);
    if (failure != 0)
        error = errnoText(failure);
    return failure == 0;
}

// A regular file with other hard links: rewritten in place, so that every name still sees the
// one file (a rename would leave the other names on the old text). Not atomic, the price the
// shell's `>` pays too; the text is complete in memory before the file is truncated.
bool writeInPlace(const std::string& path, std::string_view text, std::string& error)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        error = errnoText(errno);
        return false;
    }
    const int failure = writeAndClose(fd, text, true);
    if (failure != 0)
        error = errnoText(failure);
    return failure == 0;
}

} // namespace

bool writeTextFileAtomically(const std::string& given, std::string_view text, std::string& error)
{
    const auto why = [&error](int code, const std::string& what = {}) {
        error = what + errnoText(code);
        return false;
    };
    const auto refuse = [&error](const std::string& what) {
        error = what;
        return false;
    };
    if (given.empty())
        return why(ENOENT);
    // A symbolic link is followed: the file it names is written, the link stays (rename(2)
    // over the link would replace the link itself with a file).
    std::string path = given;
    struct stat st
    {};
    bool exists = ::lstat(path.c_str(), &st) == 0;
    if (!exists && errno != ENOENT)
        return why(errno);
    if (exists && S_ISLNK(st.st_mode)) {
        char* resolved = ::realpath(given.c_str(), nullptr);
        if (resolved == nullptr)
            return errno == ENOENT ? refuse("a symbolic link to a file that does not exist")
                                   : why(errno);
        path = resolved;
        std::free(resolved);
        if (::stat(path.c_str(), &st) != 0)
            return why(errno);
    }
    if (exists) {
        if (S_ISDIR(st.st_mode))
            return why(EISDIR);
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            return writeThrough(path, S_ISFIFO(st.st_mode), text, error);
        if (S_ISBLK(st.st_mode))
            return refuse("a block device (a disk?); refusing to write over it");
        if (!S_ISREG(st.st_mode))
            return refuse("not a regular file (a socket?); refusing to write over it");
        // Read-only stays read-only, root or not: the shell's `>` refuses such a file to its
        // owner, and a rename would replace it silently.
        if ((st.st_mode & 0222) == 0 || ::access(path.c_str(), W_OK) != 0)
            return refuse("the file is read-only; refusing to replace it");
        if (st.st_nlink > 1)
            return writeInPlace(path, text, error);
    }
    // Beside the target: rename(2) replaces a file atomically only within one file system. The
    // name is the process's and a counter's, created exclusively, so that two writers (two
    // threads, two processes) never share one. Private until it has the target's permissions.
    static std::atomic<unsigned> counter{0};
    std::string temp;
    int fd = -1;
    for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
        temp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? 0600 : 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return why(errno, "cannot create a file beside it: ");
    int failure = 0;
    if (exists) {
        // The replaced file's owner, group and mode. When the owner or group cannot be kept (not
        // root), the permissions of the class that changed are dropped rather than handed to
        // another user or group: never wider than before.
        mode_t mode = st.st_mode & 0777;
        if (::fchown(fd, st.st_uid, st.st_gid) != 0) {
            struct stat now
            {};
            if (::fstat(fd, &now) == 0) {
                if (now.st_gid != st.st_gid)
                    mode &= ~static_cast<mode_t>(0070);
                if (now.st_uid != st.st_uid)
                    mode &= ~static_cast<mode_t>(0007);
            }
        }
        if (::fchmod(fd, mode) != 0)
            failure = errno;
    }
    if (failure == 0)
        failure = writeAndClose(fd, text, true);
    else
        ::close(fd);
    if (failure == 0 && ::rename(temp.c_str(), path.c_str()) != 0)
        failure = errno;
    if (failure != 0) {
        ::unlink(temp.c_str());
        return why(failure);
    }
    return true;
}

} // namespace archipelago::core
