#ifdef FEM_WITH_VTK

#include "vtk_error_capture.hpp"

#include <vtkCallbackCommand.h>
#include <vtkExecutive.h>

namespace fem::detail {

namespace {

/// VTK formats "ERROR: In <source file>, line <n>\n<Class> (<address>): <message>\n\n"; only the
/// message means anything to a user.
std::string strip_vtk_decoration(std::string text) {
  if (text.rfind("ERROR: In ", 0) == 0) {
    const auto eol = text.find('\n');
    text = eol == std::string::npos ? std::string() : text.substr(eol + 1);
  }
  const auto eol = text.find('\n');
  const auto prefix_end = text.find("): ");
  if (prefix_end != std::string::npos && (eol == std::string::npos || prefix_end < eol)) {
    text.erase(0, prefix_end + 3);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

void VtkErrorCapture::Execute(vtkObject* /*caller*/, unsigned long /*event_id*/, void* call_data) {
  const char* text = static_cast<const char*>(call_data);
  std::string message = strip_vtk_decoration(text ? text : "");
  if (!message.empty()) messages_.push_back(std::move(message));
}

void VtkErrorCapture::watch(vtkAlgorithm* algorithm) {
  algorithm->AddObserver(vtkCommand::ErrorEvent, this);
  // A callback command without a callback swallows the event.
  if (!mute_) mute_ = vtkSmartPointer<vtkCallbackCommand>::New();
  algorithm->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, mute_);
}

std::string VtkErrorCapture::text() const {
  std::string joined;
  for (const std::string& m : messages_) {
    if (!joined.empty()) joined += "; ";
    joined += m;
  }
  return joined;
}

}  // namespace fem::detail

#endif  // FEM_WITH_VTK
