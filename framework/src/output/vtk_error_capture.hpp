// Turns VTK's error reports into text for fem::Error (framework/src/output/ only, not installed).
//
// VTK reports failures by printing to its global output window and setting an error code; an
// object with an ErrorEvent observer hands the message to the observer instead. Capturing it lets
// fem put VTK's reason into the exception and keeps stderr free of duplicate noise.
#pragma once

#include <vtkAlgorithm.h>
#include <vtkCommand.h>
#include <vtkSmartPointer.h>

#include <string>
#include <vector>

namespace fem::detail {

class VtkErrorCapture : public vtkCommand {
 public:
  // No vtkTypeMacro: nothing asks this command for its class name, and the macro cannot be
  // followed by ';' under -Wpedantic, which clang-format cannot lay out.
  static VtkErrorCapture* New() { return new VtkErrorCapture; }

  void Execute(vtkObject* caller, unsigned long event_id, void* call_data) override;

  /// Collects `algorithm`'s errors. Its executive's follow-up ("Algorithm ... returned failure
  /// for request: ...", a dump of pipeline state) adds nothing for a user and is dropped.
  void watch(vtkAlgorithm* algorithm);

  [[nodiscard]] bool empty() const { return messages_.empty(); }
  /// All messages so far, joined with "; ", without VTK's source-file and object-address prefix.
  [[nodiscard]] std::string text() const;

 private:
  VtkErrorCapture() = default;
  std::vector<std::string> messages_;
  vtkSmartPointer<vtkCommand> mute_;
};

}  // namespace fem::detail
