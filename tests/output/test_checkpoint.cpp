// The checkpoint file: what is written is read back exactly, and a file that is not a checkpoint,
// of another format version, truncated or damaged anywhere is refused with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "fem/error.hpp"
#include "fem/output/checkpoint.hpp"
#include "output/scratch_dir.hpp"

namespace fem {
namespace {

using test::read_text;
using test::ScratchDir;

Checkpoint sample() {
  Checkpoint c;
  c.fem_version = "0.1.0";
  c.solver = "explicit";
  c.precision = "double";
  c.backend = "openmp";
  c.case_text = "name: cube\n# --set solver.end_time=2\n";
  c.model_hash = 0x0123456789abcdefull;
  c.num_nodes = 2;
  c.num_elements = 1;
  c.time_step = 1.0e-4;
  c.step = 1234;
  c.time = 0.1234;
  c.displacement = {1, 2, 3, -0.0, 1e-300, 0.1};
  c.vectors = {{"previous_displacement", {0.5, 2, 3, 4, 5, 6}}, {"velocity", {}}};
  c.material_state = {{}, {1.5, 2.5}};
  c.values = {{"relaxation.damping", 3.25}, {"contact.nodes", 7}};
  c.frames = {{0.0, "cube_000000.vtu"}, {0.05, "cube_000001.vtu"}};
  c.next_frame_index = 2;
  c.files = {{"energy.csv", 120}, {"top.csv", 345}};
  return c;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// The message read_checkpoint() refuses `path` with ("" if it reads it).
std::string refusal(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Checkpoint, ReadsBackExactlyWhatWasWritten) {
  const ScratchDir dir;
  const Checkpoint c = sample();
  write_checkpoint(dir / "a.checkpoint", c);
  EXPECT_FALSE(std::filesystem::exists(dir / "a.checkpoint.tmp"));
  const Checkpoint r = read_checkpoint(dir / "a.checkpoint");
  EXPECT_EQ(r.fem_version, c.fem_version);
  EXPECT_EQ(r.solver, c.solver);
  EXPECT_EQ(r.precision, c.precision);
  EXPECT_EQ(r.backend, c.backend);
  EXPECT_EQ(r.case_text, c.case_text);
  EXPECT_EQ(r.model_hash, c.model_hash);
  EXPECT_EQ(r.num_nodes, c.num_nodes);
  EXPECT_EQ(r.num_elements, c.num_elements);
  EXPECT_EQ(r.time_step, c.time_step);
  EXPECT_EQ(r.step, c.step);
  EXPECT_EQ(r.time, c.time);
  EXPECT_EQ(r.displacement, c.displacement);
  EXPECT_TRUE(std::signbit(r.displacement[3]));  // -0 stays -0: the bits, not the value
  EXPECT_EQ(r.vectors, c.vectors);
  EXPECT_EQ(r.material_state, c.material_state);
  EXPECT_EQ(r.values, c.values);
  ASSERT_EQ(r.frames.size(), 2u);
  EXPECT_EQ(r.frames[1].time, 0.05);
  EXPECT_EQ(r.frames[1].file, "cube_000001.vtu");
  EXPECT_EQ(r.next_frame_index, 2);
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[1].name, "top.csv");
  EXPECT_EQ(r.files[1].bytes, 345u);
}

TEST(Checkpoint, EveryDamagedByteIsDetected) {
  const ScratchDir dir;
  write_checkpoint(dir / "good.checkpoint", sample());
  const std::string good = read_text(dir / "good.checkpoint");
  // One bit flipped at a time, anywhere in the file: header, payload or checksum.
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    write_bytes(dir / "bad.checkpoint", bad);
    EXPECT_NE(refusal(dir / "bad.checkpoint"), "") << "byte " << i;
  }
  std::string bad = good;
  bad[good.size() / 2] = static_cast<char>(bad[good.size() / 2] ^ 1);
  write_bytes(dir / "bad.checkpoint", bad);
  EXPECT_NE(
      refusal(dir / "bad.checkpoint").find("is corrupted: its CRC-32 checksum does not match"),
      std::string::npos)
      << refusal(dir / "bad.checkpoint");
}

TEST(Checkpoint, TruncatedFileIsRefusedAsTruncated) {
  const ScratchDir dir;
  write_checkpoint(dir / "good.checkpoint", sample());
  const std::string good = read_text(dir / "good.checkpoint");
  for (const std::size_t size : {std::size_t{12}, std::size_t{30}, good.size() - 1}) {
    write_bytes(dir / "cut.checkpoint", good.substr(0, size));
    const std::string why = refusal(dir / "cut.checkpoint");
    EXPECT_NE(why.find("checkpoint '" + (dir / "cut.checkpoint") + "' is truncated"),
              std::string::npos)
        << size << ": " << why;
  }
}

TEST(Checkpoint, OtherFilesAndOtherFormatVersionsAreRefusedWithTheReason) {
  const ScratchDir dir;
  write_bytes(dir / "case.yaml", "name: cube\n");
  EXPECT_NE(refusal(dir / "case.yaml").find("is not a fem checkpoint"), std::string::npos);
  EXPECT_NE(refusal(dir / "missing").find("cannot read checkpoint"), std::string::npos);

  write_checkpoint(dir / "good.checkpoint", sample());
  std::string other = read_text(dir / "good.checkpoint");
  other[8] = static_cast<char>(kCheckpointFormat + 1);
  write_bytes(dir / "other.checkpoint", other);
  EXPECT_NE(refusal(dir / "other.checkpoint")
                .find("has format version " + std::to_string(kCheckpointFormat + 1) +
                      "; this fem reads version " + std::to_string(kCheckpointFormat)),
            std::string::npos)
      << refusal(dir / "other.checkpoint");
}

}  // namespace
}  // namespace fem
