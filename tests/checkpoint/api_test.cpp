// The checkpoint entry points' own contract (arguments, metadata, format by
// content, I/O errors); the formats themselves are tested in their own files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/fixture.h"
#include "support/test_support.h"

using namespace glia_test;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed with its contents.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "glia-ckpt-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string metadata_of(glia_tensor_dict* d, const char* key) {
  char buf[256];
  size_t n = 0;
  glia_error* e = glia_tensor_dict_get_metadata(d, key, buf, sizeof buf, &n);
  if (e) {
    std::string m = glia_error_message(e);
    glia_error_free(e);
    return "<error: " + m + ">";
  }
  return std::string(buf, n);
}

}  // namespace

TEST(CheckpointApi, MetadataKeepsInsertionOrderReplacesInPlaceAndRemovesWithNull) {
  glia_tensor_dict* raw = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&raw));
  DictHandle d(raw);
  GLIA_OK_(glia_tensor_dict_set_metadata(raw, "format", "pt"));
  GLIA_OK_(glia_tensor_dict_set_metadata(raw, "epoch", "3"));
  GLIA_OK_(glia_tensor_dict_set_metadata(raw, "format", "glia"));
  int64_t n = 0;
  GLIA_OK_(glia_tensor_dict_metadata_count(raw, &n));
  EXPECT_EQ(n, 2);
  char key[16];
  size_t len = 0;
  GLIA_OK_(glia_tensor_dict_metadata_key_at(raw, 0, key, sizeof key, &len));
  EXPECT_STREQ(key, "format");
  GLIA_OK_(glia_tensor_dict_metadata_key_at(raw, 1, key, sizeof key, &len));
  EXPECT_STREQ(key, "epoch");
  EXPECT_EQ(metadata_of(raw, "format"), "glia");
  // snprintf style: a short buffer gets a truncated, terminated prefix and the full length.
  char small[3];
  GLIA_OK_(glia_tensor_dict_get_metadata(raw, "format", small, sizeof small, &len));
  EXPECT_STREQ(small, "gl");
  EXPECT_EQ(len, 4u);
  GLIA_OK_(glia_tensor_dict_set_metadata(raw, "format", nullptr));
  GLIA_OK_(glia_tensor_dict_set_metadata(raw, "absent", nullptr));
  GLIA_OK_(glia_tensor_dict_metadata_count(raw, &n));
  EXPECT_EQ(n, 1);
  EXPECT_GLIA_MSG(glia_tensor_dict_get_metadata(raw, "format", key, sizeof key, &len), GLIA_ERR_NOT_FOUND,
                  "metadata key \"format\" not found");
  EXPECT_GLIA_MSG(glia_tensor_dict_metadata_key_at(raw, 1, key, sizeof key, &len), GLIA_ERR_INVALID_ARGUMENT,
                  "index 1 is out of range for 1 metadata entries");
  EXPECT_GLIA_MSG(glia_tensor_dict_set_metadata(raw, nullptr, "x"), GLIA_ERR_INVALID_ARGUMENT, "'key'");
}

TEST(CheckpointApi, BadArgumentsAreReportedAndWriteNothing) {
  TempDir dir;
  glia_tensor_dict* raw = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&raw));
  DictHandle d(raw);
  std::string path = dir.file("x.safetensors");
  EXPECT_GLIA_MSG(glia_tensor_dict_save(raw, path.c_str(), static_cast<glia_format>(7)), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_tensor_dict_save: argument 'format' is 7, expected GLIA_FORMAT_AUTO (0)");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path));
  EXPECT_GLIA_MSG(glia_tensor_dict_save(raw, nullptr, GLIA_FORMAT_AUTO), GLIA_ERR_INVALID_ARGUMENT, "'path'");
  EXPECT_GLIA_ERR(glia_tensor_dict_save(nullptr, path.c_str(), GLIA_FORMAT_AUTO), GLIA_ERR_INVALID_HANDLE);
  glia_tensor_dict* out = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_dict_load(path.c_str(), static_cast<glia_format>(-1), &out), GLIA_ERR_INVALID_ARGUMENT,
                  "argument 'format' is -1");
  EXPECT_GLIA_MSG(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, nullptr), GLIA_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_GLIA_MSG(glia_tensor_dict_load_buffer(nullptr, 10, GLIA_FORMAT_AUTO, &out), GLIA_ERR_INVALID_ARGUMENT,
                  "argument 'data' is NULL but 'size' is 10");
  void* data = nullptr;
  size_t size = 0;
  EXPECT_GLIA_MSG(glia_tensor_dict_save_buffer(raw, GLIA_FORMAT_AUTO, nullptr, &size), GLIA_ERR_INVALID_ARGUMENT,
                  "'out_data'");
  EXPECT_GLIA_MSG(glia_tensor_dict_save_buffer(raw, GLIA_FORMAT_AUTO, &data, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "'out_size'");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(data, nullptr);
}

TEST(CheckpointApi, FileErrorsAreIoErrorsNamingThePath) {
  TempDir dir;
  glia_tensor_dict* out = nullptr;
  std::string missing = dir.file("missing.safetensors");
  EXPECT_GLIA_MSG(glia_tensor_dict_load(missing.c_str(), GLIA_FORMAT_AUTO, &out), GLIA_ERR_IO,
                  "cannot open \"" + missing + "\": No such file or directory");
  EXPECT_GLIA_MSG(glia_tensor_dict_load(dir.path.c_str(), GLIA_FORMAT_AUTO, &out), GLIA_ERR_IO, "not a regular file");
  EXPECT_EQ(out, nullptr);

  glia_tensor_dict* raw = nullptr;
  GLIA_OK_(glia_tensor_dict_create(&raw));
  DictHandle d(raw);
  std::string nodir = dir.file("no/such/dir/x.safetensors");
  EXPECT_GLIA_MSG(glia_tensor_dict_save(raw, nodir.c_str(), GLIA_FORMAT_SAFETENSORS), GLIA_ERR_IO,
                  "to write \"" + nodir + "\": No such file or directory");
  EXPECT_GLIA_MSG(glia_tensor_dict_save(raw, (dir.path.string() + "/").c_str(), GLIA_FORMAT_SAFETENSORS),
                  GLIA_ERR_INVALID_ARGUMENT, "names a directory");
  // A directory where the file should go: the temp file is written, the rename fails,
  // and the temp file is removed again.
  fs::create_directory(dir.file("taken"));
  EXPECT_GLIA_MSG(glia_tensor_dict_save(raw, dir.file("taken").c_str(), GLIA_FORMAT_SAFETENSORS), GLIA_ERR_IO,
                  "cannot replace \"" + dir.file("taken") + "\"");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 1)
      << "a temp file was left behind";
}

TEST(CheckpointApi, FormatIsChosenByContentNotByName) {
  TempDir dir;
  glia_tensor_dict* out = nullptr;
  // Neither format: named like both.
  for (const char* name : {"weights.safetensors", "model.pt", "empty.bin"}) {
    std::string path = dir.file(name);
    write_bytes(path, std::string(name) == "empty.bin" ? "" : "hello, this is not a checkpoint");
    EXPECT_GLIA_MSG(glia_tensor_dict_load(path.c_str(), GLIA_FORMAT_AUTO, &out), GLIA_ERR_FORMAT,
                    "is neither a safetensors file nor a PyTorch checkpoint");
    EXPECT_EQ(out, nullptr);
  }
}

TEST(CheckpointApi, ModuleSaveAndLoadNameTheirArguments) {
  TempDir dir;
  std::string path = dir.file("m.safetensors");
  EXPECT_GLIA_ERR(glia_module_save(nullptr, path.c_str()), GLIA_ERR_INVALID_HANDLE);
  EXPECT_GLIA_ERR(glia_module_load(nullptr, path.c_str(), 1, nullptr), GLIA_ERR_INVALID_HANDLE);
  EXPECT_FALSE(fs::exists(path));
}
