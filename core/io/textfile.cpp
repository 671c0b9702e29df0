#include "io/textfile.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fcntl.h>
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

bool writeTextFileAtomically(const std::string& path, std::string_view text, std::string& error)
{
    namespace fs = std::filesystem;
    const auto why = [&error](int code, const std::string& what) {
        error = what + std::error_code(code, std::generic_category()).message();
        return false;
    };
    std::error_code ec;
    if (path.empty())
        return why(ENOENT, "");
    if (fs::is_directory(path, ec))
        return why(EISDIR, "");
    // Beside the target: rename(2) replaces a file atomically only within one file system. The
    // name is the process's and a counter's, created exclusively, so that two writers (two
    // threads, two processes) never share one.
    static std::atomic<unsigned> counter{0};
    std::string temp;
    int fd = -1;
    for (int attempt = 0; attempt < 64 && fd < 0; ++attempt) {
        temp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return why(errno, "cannot create a file beside it: ");
    int failure = 0;
    const char* next = text.data();
    std::size_t left = text.size();
    while (left > 0 && failure == 0) {
        const ssize_t n = ::write(fd, next, left);
        if (n < 0 && errno != EINTR)
            failure = errno;
        if (n > 0) {
            next += n;
            left -= static_cast<std::size_t>(n);
        }
    }
    if (failure == 0 && ::fsync(fd) != 0)
        failure = errno;
    if (::close(fd) != 0 && failure == 0)
        failure = errno;
    if (failure == 0 && ::rename(temp.c_str(), path.c_str()) != 0)
        failure = errno;
    if (failure != 0) {
        ::unlink(temp.c_str());
        return why(failure, "");
    }
    return true;
}

} // namespace archipelago::core
