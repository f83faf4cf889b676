// I/O failures while saving a checkpoint (the reliability issue): every system
// call AtomicFile makes (write, fsync, close, rename) is made to fail in turn, in
// both formats, with the errors a full or broken disk gives. At every injection
// point the save must fail with Error(IO) naming the path and the OS's reason,
// the file that was at the path must be byte-identical afterwards, and no
// temporary file may be left in the directory. Short writes (a write that takes
// fewer bytes than asked, as a pipe or a signal gives) must not fail and must
// produce the very bytes of an undisturbed save.
#include <dirent.h>
#include <errno.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/byte_source.h"
#include "io/checkpoint.h"
#include "nn/tensor_dict.h"

namespace {

using namespace glia;
using io::FileOps;

// The injection state, read by the replacement system calls below.
struct Injection {
  enum class Call { Write, Fsync, Close, Rename };
  int calls = 0;          // system calls seen so far (all four kinds)
  int fail_at = -1;       // index of the call that fails, -1 for none
  int err = 0;            // its errno
  size_t short_by = 0;    // > 0: every write takes at most this many bytes
  std::vector<Call> log;  // the kinds of call, in order
  bool fails(Call c) {
    log.push_back(c);
    return calls++ == fail_at;
  }
};
Injection* g = nullptr;

ssize_t fake_write(int fd, const void* p, size_t n) {
  if (g->fails(Injection::Call::Write)) {
    errno = g->err;
    return -1;
  }
  if (g->short_by > 0 && n > g->short_by) n = g->short_by;
  return ::write(fd, p, n);
}
int fake_fsync(int fd) {
  if (g->fails(Injection::Call::Fsync)) {
    errno = g->err;
    return -1;
  }
  return ::fsync(fd);
}
int fake_close(int fd) {
  // Linux releases the descriptor even when close reports an error.
  bool fail = g->fails(Injection::Call::Close);
  int rc = ::close(fd);
  if (fail) {
    errno = g->err;
    return -1;
  }
  return rc;
}
int fake_rename(const char* from, const char* to) {
  if (g->fails(Injection::Call::Rename)) {
    errno = g->err;
    return -1;
  }
  return ::rename(from, to);
}

// Installs the fakes for one scope.
class Inject {
 public:
  explicit Inject(Injection& i) : saved_(io::file_ops()) {
    g = &i;
    io::file_ops() = FileOps{fake_write, fake_fsync, fake_close, fake_rename};
  }
  ~Inject() {
    io::file_ops() = saved_;
    g = nullptr;
  }

 private:
  FileOps saved_;
};

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

// A state dict big enough that the writer both buffers and writes straight
// through (AtomicFile buffers 1 MiB): a 3 MiB tensor, a small one, an int64 one.
Ref<nn::TensorDict> sample_dict() {
  auto d = make_ref<nn::TensorDict>();
  d->set("big.weight", arange(0, 3 * 256 * 1024, 1, DType::Float32, Device{}));
  d->set("small.bias", arange(0, 5, 1, DType::Float64, Device{}));
  d->set("steps", full({}, 42, DType::Int64, Device{}));
  return d;
}

class IoFailure : public ::testing::TestWithParam<io::Format> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/glia-io-failure-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/model.ckpt";
    // The file that must survive every failed save: an earlier, different checkpoint.
    auto old = make_ref<nn::TensorDict>();
    old->set("old", arange(0, 7, 1, DType::Float32, Device{}));
    io::save_file(*old, path_, GetParam());
    old_bytes_ = read_all(path_);
    ASSERT_FALSE(old_bytes_.empty());
  }
  void TearDown() override {
    for (const std::string& e : dir_entries(dir_)) ::unlink((dir_ + "/" + e).c_str());
    ::rmdir(dir_.c_str());
  }
  void expect_untouched(const std::string& when) {
    EXPECT_TRUE(read_all(path_) == old_bytes_) << when << ": the previous file changed";
    EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"model.ckpt"}) << when << ": a temporary file was left";
  }

  std::string dir_, path_, old_bytes_;
};

TEST_P(IoFailure, EveryFailingCallLeavesThePreviousFileIntact) {
  auto dict = sample_dict();
  int points = 0;
  std::string reference;
  // Whole writes, then writes cut to 256 KiB so that a failure can hit the
  // middle of the big tensor's bytes.
  for (size_t short_by : {size_t{0}, size_t{256} << 10}) {
    SCOPED_TRACE("writes cut to " + std::to_string(short_by));
    // An undisturbed save to the same path (torch's format names its folder
    // after the file): its bytes and its calls. Then the old file goes back.
    Injection clean;
    clean.short_by = short_by;
    {
      Inject on(clean);
      io::save_file(*dict, path_, GetParam());
    }
    reference = read_all(path_);
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << old_bytes_;
    ASSERT_TRUE(read_all(path_) == old_bytes_);
    ASSERT_GE(clean.calls, 4);  // at least one write, then fsync, close, rename
    ASSERT_EQ(clean.log.back(), Injection::Call::Rename);

    for (int at = 0; at < clean.calls; ++at) {
      Injection::Call kind = clean.log[static_cast<size_t>(at)];
      // The errors each call gives on a full or failing disk (write(2),
      // fsync(2), close(2), rename(2)).
      std::vector<int> errs;
      switch (kind) {
        case Injection::Call::Write:
          errs = {ENOSPC, EIO, EDQUOT};
          break;
        case Injection::Call::Fsync:
        case Injection::Call::Close:
          errs = {EIO, ENOSPC};
          break;
        case Injection::Call::Rename:
          errs = {EACCES, EXDEV, EROFS};
          break;
      }
      for (int err : errs) {
        std::string when = "call " + std::to_string(at) + ", " + std::strerror(err);
        SCOPED_TRACE(when);
        Injection inj;
        inj.fail_at = at;
        inj.err = err;
        inj.short_by = short_by;
        try {
          Inject on(inj);
          io::save_file(*dict, path_, GetParam());
          ADD_FAILURE() << "the save succeeded although " << when << " failed";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Code::IO);
          std::string msg = e.what();
          EXPECT_NE(msg.find("\"" + path_ + "\""), std::string::npos) << msg;
          EXPECT_NE(msg.find(std::strerror(err)), std::string::npos) << msg;
        }
        EXPECT_EQ(inj.calls, at + 1) << "the writer went on after a failed call";
        expect_untouched(when);
        ++points;
      }
    }
  }
  // The library is still usable: the next undisturbed save replaces the file.
  io::save_file(*dict, path_, GetParam());
  EXPECT_TRUE(read_all(path_) == reference) << "a save after the failures wrote other bytes";
  EXPECT_GE(points, 40);
  RecordProperty("injection_points", points);
}

TEST_P(IoFailure, ShortWritesGiveTheSameBytes) {
  auto dict = sample_dict();
  io::save_file(*dict, path_, GetParam());
  std::string whole = read_all(path_);
  for (size_t chunk : {size_t{1} << 16, size_t{4093}}) {
    SCOPED_TRACE(chunk);
    Injection inj;
    inj.short_by = chunk;
    {
      Inject on(inj);
      io::save_file(*dict, path_, GetParam());
    }
    EXPECT_TRUE(read_all(path_) == whole) << "short writes changed the file";
    EXPECT_GT(inj.log.size(), whole.size() / chunk) << "writes were not cut short";
    EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"model.ckpt"});
  }
}

TEST_P(IoFailure, AFailedSaveIntoAMissingDirectoryNamesIt) {
  auto dict = sample_dict();
  std::string bad = dir_ + "/no-such-dir/model.ckpt";
  try {
    io::save_file(*dict, bad, GetParam());
    FAIL() << "saved into a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::IO);
    EXPECT_NE(std::string(e.what()).find(dir_ + "/no-such-dir"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  expect_untouched("missing directory");
}

std::string format_name(const ::testing::TestParamInfo<io::Format>& info) { return io::format_name(info.param); }

INSTANTIATE_TEST_SUITE_P(Formats, IoFailure, ::testing::Values(io::Format::Safetensors, io::Format::Torch),
                         format_name);

}  // namespace
