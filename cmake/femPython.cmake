# Finds Python 3 and pybind11 for the Python module (python/, `import fem`) and decides whether
# to build it (FEM_WITH_PYTHON: ON, OFF or AUTO). Where something is missing, configuring says
# what and how to get it; AUTO then leaves the module out, ON fails.
#
# Sets FEM_PYTHON_ENABLED, FEM_PYTHON_INSTALL_DIR (where `cmake --install` puts the package fem/,
# relative to the prefix unless absolute) and FEM_PYTHON_SUMMARY (what `fem plugins` says of the
# module: for which Python it was built and where it is, or why it was not).

set(FEM_PYTHON_ENABLED OFF)
set(FEM_PYTHON_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/python3/dist-packages"
    CACHE STRING "Where the Python package fem/ is installed (relative to the prefix, or absolute)")
set(FEM_PYTHON_SUMMARY "not built (FEM_WITH_PYTHON=OFF)")
if(FEM_WITH_PYTHON STREQUAL "OFF")
  return()
endif()

set(_why "")
# Without Python3_EXECUTABLE: the first of python3 on the PATH and /usr/bin/python3 (Debian's, with
# python3-numpy) that imports numpy, so that a python3 of another installation (pyenv) without
# NumPy does not hide Debian's.
if(NOT Python3_EXECUTABLE)
  find_program(_python3_on_path NAMES python3 NO_CACHE)
  foreach(_candidate IN ITEMS "${_python3_on_path}" /usr/bin/python3)
    if(_candidate AND EXISTS "${_candidate}")
      execute_process(COMMAND "${_candidate}" -c "import numpy" RESULT_VARIABLE _numpy
                      OUTPUT_QUIET ERROR_QUIET)
      if(_numpy EQUAL 0)
        set(Python3_EXECUTABLE "${_candidate}")
        break()
      endif()
    endif()
  endforeach()
endif()
find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
if(NOT Python3_FOUND)
  set(_why "no Python 3 interpreter with its headers found (install python3-dev, or set "
           "Python3_EXECUTABLE)")
else()
  # The module hands results over as NumPy arrays: NumPy must be importable by this interpreter.
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import numpy"
                  RESULT_VARIABLE _numpy OUTPUT_QUIET ERROR_QUIET)
  if(NOT _numpy EQUAL 0)
    set(_why "${Python3_EXECUTABLE} cannot import numpy (install python3-numpy, or set "
             "Python3_EXECUTABLE to an interpreter that has it)")
  else()
    find_package(pybind11 2.6 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      set(_why "pybind11 not found (install pybind11-dev, or point pybind11_DIR at its CMake "
               "files)")
    endif()
  endif()
endif()

if(_why)
  string(REPLACE ";" "" _why "${_why}")
  if(FEM_WITH_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "FEM_WITH_PYTHON=ON, but the Python module cannot be built: ${_why}")
  endif()
  message(STATUS "fem: Python module not built: ${_why}")
  set(FEM_PYTHON_SUMMARY "not built: ${_why}")
  return()
endif()
set(FEM_PYTHON_ENABLED ON)
set(FEM_PYTHON_SUMMARY
    "built for Python ${Python3_VERSION} (${Python3_EXECUTABLE}), import fem with PYTHONPATH="
    "${PROJECT_BINARY_DIR}/python, or from ${FEM_PYTHON_INSTALL_DIR} once installed")
string(REPLACE ";" "" FEM_PYTHON_SUMMARY "${FEM_PYTHON_SUMMARY}")
message(STATUS "fem: Python module for ${Python3_EXECUTABLE} (Python ${Python3_VERSION}, "
               "pybind11 ${pybind11_VERSION})")
