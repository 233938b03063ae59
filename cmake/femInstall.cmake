# The installed package (`cmake --install build --prefix P`): SDK headers, libfem, the `fem`
# program, backends, built-in plugins under P/lib/fem/plugins, and femConfig.cmake exporting the
# targets and the plugin helpers. Nothing installed names a path of the build machine: the
# exported targets and femConfig.cmake locate the prefix from their own folder, binaries and
# plugins find libfem through $ORIGIN, and the loader finds plugins beside libfem.
include(CMakePackageConfigHelpers)

install(TARGETS fem EXPORT femTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/fem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET fem_kokkos_runtime)  # linked by fem::kokkos_kernels
  set_target_properties(fem_kokkos_runtime PROPERTIES EXPORT_NAME kokkos_runtime)
  install(TARGETS fem_kokkos_runtime EXPORT femTargets)
endif()
install(EXPORT femTargets NAMESPACE fem:: DESTINATION ${FEM_CMAKE_INSTALL_DIR})

file(STRINGS ${PROJECT_SOURCE_DIR}/framework/include/fem/plugin.hpp _abi_line
     REGEX "^#define FEM_PLUGIN_ABI_VERSION")
string(REGEX MATCH "[0-9]+" FEM_PLUGIN_ABI_VERSION "${_abi_line}")
get_property(FEM_INSTALLED_BACKENDS GLOBAL PROPERTY FEM_MATERIAL_BACKENDS)
set(FEM_BACKEND_PACKAGE_LINES "")
foreach(backend IN LISTS FEM_INSTALLED_BACKENDS)
  get_property(packages GLOBAL PROPERTY FEM_BACKEND_${backend}_PACKAGES)
  get_property(language GLOBAL PROPERTY FEM_BACKEND_${backend}_LANGUAGE)
  string(APPEND FEM_BACKEND_PACKAGE_LINES "set(fem_BACKEND_${backend}_PACKAGES ${packages})\n"
                                          "set(fem_BACKEND_${backend}_LANGUAGE \"${language}\")\n")
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/femConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/femConfig.cmake
                              INSTALL_DESTINATION ${FEM_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/femConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/femConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/femConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/femPlugins.cmake
        DESTINATION ${FEM_CMAKE_INSTALL_DIR})
