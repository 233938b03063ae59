// Stopping cleanly: SIGINT to a running `fem run` ends it with exit code 5 after the current step,
// leaving a checkpoint it continues from, a .pvd that lists only whole frames, and CSV files of
// whole rows; a checkpoint damaged on disk is refused; an output file that can no longer grow
// (a full disk, here `ulimit -f`) stops the run with one message and leaves the files valid.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/run_fem.hpp"

namespace fem::test {
namespace {

namespace fs = std::filesystem;
const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

/// `fem args` started in the background with its output in `log`; returns its process id.
pid_t start_fem(const std::string& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const std::string command = "exec " + std::string(FEM_BINARY_DIR) + "/bin/fem " + args;
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

/// The exit status of `pid`, waiting at most `seconds` (then it is killed and -1 returned).
int wait_for(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return -1;
}

bool wait_for_file(const fs::path& path, int seconds) {
  for (int i = 0; i < seconds * 100 && !fs::exists(path); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return fs::exists(path);
}

/// A .pvd that is complete XML whose every data set exists beside it.
void expect_valid_pvd(const fs::path& pvd) {
  const std::string text = read_text(pvd.string());
  EXPECT_NE(text.find("</VTKFile>"), std::string::npos) << text;
  const std::regex file_attribute("file=\"([^\"]+)\"");
  int frames = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), file_attribute);
       it != std::sregex_iterator(); ++it, ++frames)
    EXPECT_TRUE(fs::exists(pvd.parent_path() / (*it)[1].str())) << (*it)[1].str();
  EXPECT_GT(frames, 0) << text;
}

/// A CSV whose every line (header included) is whole: ends with a newline, same column count.
void expect_whole_rows(const fs::path& csv) {
  const std::string text = read_text(csv.string());
  ASSERT_FALSE(text.empty()) << csv;
  EXPECT_EQ(text.back(), '\n') << csv;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  const auto columns = std::count(line.begin(), line.end(), ',');
  while (std::getline(lines, line))
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), columns) << csv << ": " << line;
}

std::vector<fs::path> checkpoints_in(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".checkpoint") found.push_back(e.path());
  std::sort(found.begin(), found.end());
  return found;
}

TEST(Signals, SigintStopsWithACheckpointAndValidFilesAndTheRunContinuesFromIt) {
  const fs::path dir = fresh_temp_dir("fem_signals", "sigint");
  // Hours of simulated time: only the signal ends it. A time step of 2^-10 s divides every end
  // time below exactly, so that the restart to a nearer end keeps the checkpoint's step.
  const std::string args =
      "run " + kCase + " --output " + dir.string() + " --set solver.time_step=0.0009765625";
  const pid_t pid = start_fem(args + " --end-time 10000", dir.string() + ".log");
  ASSERT_TRUE(wait_for_file(dir / "small_cube_000002.vtu", 60)) << read_text(dir.string() + ".log");
  ::kill(pid, SIGINT);
  const int status = wait_for(pid, 60);
  const std::string log = read_text(dir.string() + ".log");
  ASSERT_TRUE(WIFEXITED(status)) << status << "\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 5) << log;
  EXPECT_NE(log.find("stopping after the current step"), std::string::npos) << log;
  EXPECT_NE(log.find("continue with the same command and --restart"), std::string::npos) << log;

  expect_valid_pvd(dir / "small_cube.pvd");
  expect_whole_rows(dir / "energy.csv");
  expect_whole_rows(dir / "top.csv");
  EXPECT_NE(read_text((dir / "summary.json").string()).find("\"status\": \"interrupted\""),
            std::string::npos);
  const std::vector<fs::path> found = checkpoints_in(dir);
  ASSERT_EQ(found.size(), 1u);

  // The run goes on from the checkpoint to a nearby end.
  const std::smatch step = [&] {
    std::smatch m;
    std::regex_search(log, m, std::regex("interrupted at step (\\d+) \\(t = ([0-9.e+-]+) s\\)"));
    return m;
  }();
  ASSERT_EQ(step.size(), 3u) << log;
  char end_time[32];
  std::snprintf(end_time, sizeof end_time, "%.17g", (std::stod(step[1].str()) + 200) / 1024.0);
  const FemResult r =
      run_fem(args + " --end-time " + end_time + " --restart " + found.front().string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("continuing from step " + step[1].str()), std::string::npos) << r.output;
  expect_valid_pvd(dir / "small_cube.pvd");
  expect_whole_rows(dir / "energy.csv");

  // The same checkpoint with one byte changed is refused, and nothing runs.
  std::string bytes = read_text(found.front().string());
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x04);
  const fs::path damaged = dir / "damaged.checkpoint";
  std::ofstream(damaged, std::ios::binary) << bytes;
  const FemResult refused = run_fem(args + " --end-time 10000 --restart " + damaged.string());
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("checkpoint '" + damaged.string() +
                                "' is corrupted: its CRC-32 checksum does not match"),
            std::string::npos)
      << refused.output;
  fs::remove_all(dir);
}

TEST(Signals, SigtermStopsAnImplicitRunAfterItsIncrementAndItContinues) {
  const fs::path dir = fresh_temp_dir("fem_signals", "implicit");
  const std::string args =
      "run " + kCase + " --output " + dir.string() +
      " --set 'solver={type: implicit_dynamic, time_step: 0.01, end_time: 10000}'";
  const pid_t pid = start_fem(args, dir.string() + ".log");
  ASSERT_TRUE(wait_for_file(dir / "small_cube_000002.vtu", 60)) << read_text(dir.string() + ".log");
  ::kill(pid, SIGTERM);
  const int status = wait_for(pid, 60);
  const std::string log = read_text(dir.string() + ".log");
  ASSERT_TRUE(WIFEXITED(status)) << status << "\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 5) << log;
  expect_valid_pvd(dir / "small_cube.pvd");
  expect_whole_rows(dir / "energy.csv");
  expect_whole_rows(dir / "top.csv");
  expect_whole_rows(dir / "convergence.csv");
  EXPECT_NE(read_text((dir / "summary.json").string()).find("\"status\": \"interrupted\""),
            std::string::npos);
  const std::vector<fs::path> found = checkpoints_in(dir);
  ASSERT_EQ(found.size(), 1u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      log, m, std::regex("interrupted at increment (\\d+) \\(t = ([0-9.e+-]+)\\)")))
      << log;
  const FemResult r =
      run_fem(args + " --set solver.end_time=" + std::to_string(std::stod(m[2].str()) + 0.05) +
              " --restart " + found.front().string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("continuing from increment " + m[1].str()), std::string::npos)
      << r.output;
  expect_valid_pvd(dir / "small_cube.pvd");
  expect_whole_rows(dir / "energy.csv");
  fs::remove_all(dir);
}

TEST(Signals, CheckpointOfAnotherSolverIsRefused) {
  const fs::path dir = fresh_temp_dir("fem_signals", "solver");
  const std::string args = "run " + kCase + " --output " + dir.string();
  ASSERT_EQ(run_fem(args + " --set 'output.checkpoint={every_steps: 100}'").code, 0);
  const std::vector<fs::path> found = checkpoints_in(dir);
  ASSERT_FALSE(found.empty());
  const FemResult r = run_fem(
      args + " --set 'solver={type: implicit_dynamic, time_step: 0.01, end_time: 0.5}' --restart " +
      found.front().string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(
                "cannot restart from '" + found.front().string() +
                "': it was written by the explicit solver; this case's solver is implicit_dynamic"),
            std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(Signals, OutputThatCannotGrowStopsTheRunWithOneMessageAndValidFiles) {
  const fs::path dir = fresh_temp_dir("fem_signals", "full");
  // Files may not grow past 30 blocks of 512 bytes (sh's unit): the frames (7 kB) fit, the
  // history outgrows it after about a hundred rows, as on a disk that fills up.
  const FemResult r = run_fem(
      "run " + kCase + " --output " + dir.string() + " --end-time 1000 --set output.every_steps=10",
      "ulimit -f 30;");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the files written before are complete"), std::string::npos) << r.output;
  expect_valid_pvd(dir / "small_cube.pvd");
  expect_whole_rows(dir / "energy.csv");
  expect_whole_rows(dir / "top.csv");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fem::test
