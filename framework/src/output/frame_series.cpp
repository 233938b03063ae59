#include "fem/output/frame_series.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>

namespace fem {

FrameSeries::FrameSeries(std::unique_ptr<VtkSeriesWriter> vtk,
                         std::unique_ptr<XdmfSeriesWriter> xdmf, FrameWriting writing)
    : vtk_(std::move(vtk)), xdmf_(std::move(xdmf)), writing_(writing) {}

FrameSeries::~FrameSeries() {
  if (!pending_.valid()) return;
  try {
    pending_.get();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  }
}

void FrameSeries::wait() const {
  if (pending_.valid()) pending_.get();
}

void FrameSeries::write_now(const OutputFrame& frame) {
  if (vtk_) vtk_->write(frame);
  if (xdmf_) xdmf_->write(frame);
}

void FrameSeries::write(OutputFrame frame) {
  wait();
  ++frames_handed_;
  if (writing_ == FrameWriting::OnCaller) {
    write_now(frame);
    return;
  }
  // The frame moves to the writing thread, which owns it until the file is complete.
  pending_ = std::async(std::launch::async, [this, owned = std::move(frame)] { write_now(owned); });
}

void FrameSeries::flush() {
  wait();
  if (vtk_) vtk_->flush();
  if (xdmf_) xdmf_->flush();
}

std::string FrameSeries::write_single(const OutputFrame& frame, const std::string& file_name) {
  wait();
  return vtk_ ? vtk_->write_single(frame, file_name) : std::string();
}

std::vector<std::string> FrameSeries::index_paths() const {
  std::vector<std::string> paths;
  if (vtk_) paths.push_back(vtk_->pvd_path());
  if (xdmf_) paths.push_back(xdmf_->xdmf_path());
  return paths;
}

std::vector<SeriesFrame> FrameSeries::frames() const {
  wait();
  return vtk_ ? vtk_->frames() : std::vector<SeriesFrame>{};
}

int FrameSeries::next_index() const {
  wait();
  return vtk_ ? vtk_->next_index() : xdmf_->next_index();
}

void FrameSeries::resume(std::vector<SeriesFrame> frames, int next_index) {
  wait();
  if (vtk_) vtk_->resume(std::move(frames), next_index);
  if (xdmf_) xdmf_->resume(next_index);
  frames_handed_ = vtk_ ? vtk_->frames_written() : xdmf_->frames_written();
}

}  // namespace fem
