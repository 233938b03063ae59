#include "fem/output/frame_series.hpp"

#include <utility>

namespace fem {

FrameSeries::FrameSeries(std::unique_ptr<VtkSeriesWriter> vtk,
                         std::unique_ptr<XdmfSeriesWriter> xdmf)
    : vtk_(std::move(vtk)), xdmf_(std::move(xdmf)) {}

void FrameSeries::write(const OutputFrame& frame) {
  if (vtk_) vtk_->write(frame);
  if (xdmf_) xdmf_->write(frame);
}

void FrameSeries::flush() {
  if (vtk_) vtk_->flush();
  if (xdmf_) xdmf_->flush();
}

std::string FrameSeries::write_single(const OutputFrame& frame, const std::string& file_name) {
  return vtk_ ? vtk_->write_single(frame, file_name) : std::string();
}

std::vector<std::string> FrameSeries::index_paths() const {
  std::vector<std::string> paths;
  if (vtk_) paths.push_back(vtk_->pvd_path());
  if (xdmf_) paths.push_back(xdmf_->xdmf_path());
  return paths;
}

int FrameSeries::frames_written() const {
  return vtk_ ? vtk_->frames_written() : xdmf_->frames_written();
}

std::vector<SeriesFrame> FrameSeries::frames() const {
  return vtk_ ? vtk_->frames() : std::vector<SeriesFrame>{};
}

int FrameSeries::next_index() const {
  return vtk_ ? vtk_->next_index() : xdmf_->next_index();
}

void FrameSeries::resume(std::vector<SeriesFrame> frames, int next_index) {
  if (vtk_) vtk_->resume(std::move(frames), next_index);
  if (xdmf_) xdmf_->resume(next_index);
}

}  // namespace fem
