# CMake helpers to build fem plugins. Used by the built-in plugins in this tree and, installed with
# femConfig.cmake, by third parties out of tree:
#
#   fem_add_material(<name> <header> [VERSION <v>] [BACKENDS <b>...])
#       -> <name>.<backend>.so for every backend (or only the BACKENDS listed)
#   fem_add_element(<name> <sources...> [VERSION <v>]) -> <name>.element.so
#
# Backends announce themselves with fem_register_backend(); a material is compiled once per
# registered backend against that backend's kernel templates. In this tree fem_add_backend()
# registers them; in an installation femConfig.cmake registers the backends that were installed.
#
# Plugins land in FEM_PLUGIN_OUTPUT_DIR: the build tree's plugin folder in this tree, the
# caller's build folder (CMAKE_BINARY_DIR) out of tree. Point FEM_PLUGIN_PATH there to use them.

if(NOT DEFINED FEM_PLUGIN_OUTPUT_DIR)
  set(FEM_PLUGIN_OUTPUT_DIR ${CMAKE_BINARY_DIR})
endif()

# fem_register_backend(<name> TEMPLATE <file.in> EXTENSION <cpp|cu> KERNELS <target>
#                      [LANGUAGE <CXX|CUDA>])
#   TEMPLATE: source template that instantiates the backend's kernels for @FEM_MATERIAL_HEADER@
#   KERNELS:  interface target carrying the kernel headers, compile flags and link libraries
#   LANGUAGE: the language material sources compile as, where the extension does not say it
#             (Kokkos code is CUDA in a CUDA-enabled Kokkos, C++ otherwise)
function(fem_register_backend name)
  cmake_parse_arguments(ARG "" "TEMPLATE;EXTENSION;KERNELS;LANGUAGE" "" ${ARGN})
  set_property(GLOBAL APPEND PROPERTY FEM_MATERIAL_BACKENDS ${name})
  set_property(GLOBAL PROPERTY FEM_BACKEND_${name}_TEMPLATE ${ARG_TEMPLATE})
  set_property(GLOBAL PROPERTY FEM_BACKEND_${name}_EXTENSION ${ARG_EXTENSION})
  set_property(GLOBAL PROPERTY FEM_BACKEND_${name}_KERNELS ${ARG_KERNELS})
  set_property(GLOBAL PROPERTY FEM_BACKEND_${name}_LANGUAGE "${ARG_LANGUAGE}")
endfunction()

# fem_add_backend(<name> SOURCES <files...> TEMPLATE <material template> EXTENSION <cpp|cu>
#                 [LANGUAGE <CXX|CUDA>] [LINK <libraries...>] [OPTIONS <compile options...>]
#                 [PACKAGES <packages...>])
# Builds the backend plugin <name>.backend.so and the interface target fem::<name>_kernels that
# carries its kernel headers (include/ beside the caller), LINK libraries and OPTIONS to every
# material compiled for it; then registers the backend for fem_add_material(). PACKAGES are the
# find_package() names behind LINK: the installed femConfig.cmake finds them again (for cuda it
# also enables the CUDA language).
function(fem_add_backend name)
  cmake_parse_arguments(ARG "" "TEMPLATE;EXTENSION;LANGUAGE" "SOURCES;LINK;OPTIONS;PACKAGES" ${ARGN})
  set(kernels fem_${name}_kernels)
  add_library(${kernels} INTERFACE)
  add_library(fem::${name}_kernels ALIAS ${kernels})
  set_target_properties(${kernels} PROPERTIES EXPORT_NAME ${name}_kernels)
  target_include_directories(${kernels} INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${kernels} INTERFACE fem::fem ${ARG_LINK})
  target_compile_options(${kernels} INTERFACE ${ARG_OPTIONS})
  fem_register_backend(${name} TEMPLATE ${ARG_TEMPLATE} EXTENSION ${ARG_EXTENSION}
                       KERNELS fem::${name}_kernels LANGUAGE "${ARG_LANGUAGE}")
  set(target fem_backend_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(ARG_LANGUAGE)
    set_source_files_properties(${ARG_SOURCES} PROPERTIES LANGUAGE ${ARG_LANGUAGE})
    _fem_shared_cuda_runtime(${target} ${ARG_LANGUAGE})
  endif()
  target_link_libraries(${target} PRIVATE fem::${name}_kernels)
  target_compile_definitions(${target} PRIVATE FEM_VERSION_STRING="${PROJECT_VERSION}")
  _fem_plugin_target_defaults(${target} ${name}.backend)
  # The installed SDK: kernel headers, the material template and the kernels target.
  set_property(GLOBAL PROPERTY FEM_BACKEND_${name}_PACKAGES "${ARG_PACKAGES}")
  if(FEM_PLUGIN_INSTALL_DIR)
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(FILES ${ARG_TEMPLATE} DESTINATION ${FEM_CMAKE_INSTALL_DIR}/backends
            RENAME material_plugin.${name}.${ARG_EXTENSION}.in)
    install(TARGETS ${kernels} EXPORT femTargets)
  endif()
endfunction()

# A backend whose sources are CUDA by LANGUAGE (Kokkos) runs on a library (libkokkoscore) that uses
# the shared CUDA runtime: its plugin and materials link the same one, not a static copy each
# (CMake's default), so that streams and allocations belong to one runtime in the process.
function(_fem_shared_cuda_runtime target language)
  if(language STREQUAL "CUDA")
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
endfunction()

function(_fem_plugin_target_defaults target output_name)
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${output_name}
                                             LIBRARY_OUTPUT_DIRECTORY ${FEM_PLUGIN_OUTPUT_DIR}
                                             CXX_VISIBILITY_PRESET hidden
                                             CUDA_VISIBILITY_PRESET hidden)
  set_property(GLOBAL APPEND PROPERTY FEM_PLUGIN_TARGETS ${target})
  if(TARGET fem_warnings)
    target_link_libraries(${target} PRIVATE fem_warnings)
  endif()
  if(FEM_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${FEM_PLUGIN_INSTALL_DIR})
  endif()
endfunction()

# The version a plugin reports when none is given: the calling project's, else "0".
macro(_fem_default_version var)
  if(NOT ${var})
    if(PROJECT_VERSION)
      set(${var} ${PROJECT_VERSION})
    else()
      set(${var} 0)
    endif()
  endif()
endmacro()

function(fem_add_material name header)
  cmake_parse_arguments(ARG "" "VERSION" "BACKENDS" ${ARGN})
  _fem_default_version(ARG_VERSION)
  get_filename_component(FEM_MATERIAL_HEADER ${header} ABSOLUTE)
  set(FEM_MATERIAL_NAME ${name})
  set(FEM_MATERIAL_VERSION "${ARG_VERSION}")
  get_property(backends GLOBAL PROPERTY FEM_MATERIAL_BACKENDS)
  if(NOT backends)
    message(FATAL_ERROR "fem_add_material(${name}): no backend registered to compile it for")
  endif()
  if(ARG_BACKENDS)
    foreach(backend IN LISTS ARG_BACKENDS)
      if(NOT backend IN_LIST backends)
        message(FATAL_ERROR "fem_add_material(${name}): backend '${backend}' is not available "
                            "(available: ${backends})")
      endif()
    endforeach()
    set(backends ${ARG_BACKENDS})
  endif()
  foreach(backend IN LISTS backends)
    get_property(template GLOBAL PROPERTY FEM_BACKEND_${backend}_TEMPLATE)
    get_property(extension GLOBAL PROPERTY FEM_BACKEND_${backend}_EXTENSION)
    get_property(kernels GLOBAL PROPERTY FEM_BACKEND_${backend}_KERNELS)
    get_property(language GLOBAL PROPERTY FEM_BACKEND_${backend}_LANGUAGE)
    set(source ${CMAKE_CURRENT_BINARY_DIR}/fem_material_${name}.${backend}.${extension})
    configure_file(${template} ${source} @ONLY)
    if(language)
      set_source_files_properties(${source} PROPERTIES LANGUAGE ${language})
    endif()
    set(target fem_material_${name}_${backend})
    add_library(${target} MODULE ${source})
    _fem_shared_cuda_runtime(${target} "${language}")
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${target} PRIVATE ${kernels})
    # ISO C++ (no GNU extensions): no multiply-add contraction, as in fem's own build, so that
    # backends can agree to the last bit.
    target_compile_features(${target} PRIVATE cxx_std_20)
    set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
    if(extension STREQUAL "cu" OR language STREQUAL "CUDA")
      # The kernel headers need C++17 in CUDA sources (nothing newer).
      set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    endif()
    _fem_plugin_target_defaults(${target} ${name}.${backend})
  endforeach()
endfunction()

function(fem_add_element name)
  cmake_parse_arguments(ARG "" "VERSION" "" ${ARGN})
  _fem_default_version(ARG_VERSION)
  set(target fem_element_${name})
  add_library(${target} MODULE ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PRIVATE fem::fem)
  target_compile_features(${target} PRIVATE cxx_std_20)
  target_compile_definitions(${target} PRIVATE FEM_PLUGIN_VERSION="${ARG_VERSION}")
  _fem_plugin_target_defaults(${target} ${name}.element)
endfunction()
