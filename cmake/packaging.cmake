# Debian packages with CPack: `cpack -G DEB` in a Release build directory (scripts/deb-test.sh
# builds, installs, uses and removes them). One package per install component:
#   runtime -> libglia0       libglia.so.0.x and its SONAME link
#   dev     -> libglia-dev    the headers, glia.pc, the CMake package, the libglia.so link
#   cuda    -> libglia-cuda0  libglia_cuda.so.0, the CUDA backend (only when GLIA_HAVE_CUDA)
#   tools   -> glia-tools     installed programs (only once some install() rule uses COMPONENT tools)
# Each package gets /usr/share/doc/<package>/{copyright,changelog.Debian.gz,changelog.gz}; those files
# are installed by component installs only (EXCLUDE_FROM_ALL), so `cmake --install` stays as it was.
# Depends come from dpkg-shlibdeps; libglia0 carries a symbols file made from abi/glia.symbols with
# each symbol's version taken from its `@since` in glia.h (cmake/debian/symbols.cmake). Included at
# the end of CMakeLists.txt, after every install() rule.

set(GLIA_DEB_MAINTAINER "glia maintainers <maintainers@glia.example>" CACHE STRING
  "Maintainer field (and changelog signature) of the Debian packages")
set(GLIA_DEB_RELEASE 1 CACHE STRING "Debian revision of the packages (the part after the upstream version)")
set(GLIA_DEB_VERSION "${PROJECT_VERSION}-${GLIA_DEB_RELEASE}")

set(glia_deb_components runtime dev)
if(GLIA_HAVE_CUDA)
  list(APPEND glia_deb_components cuda)
endif()
get_cmake_property(glia_installed_components COMPONENTS)
if("tools" IN_LIST glia_installed_components)
  list(APPEND glia_deb_components tools)
endif()
foreach(c IN LISTS glia_installed_components)
  if(NOT c IN_LIST glia_deb_components AND NOT (c STREQUAL "cuda" AND NOT GLIA_HAVE_CUDA))
    message(WARNING "install() component '${c}' belongs to no Debian package (cmake/packaging.cmake)")
  endif()
endforeach()
set(glia_deb_runtime_name libglia${PROJECT_VERSION_MAJOR})
set(glia_deb_dev_name libglia-dev)
set(glia_deb_cuda_name libglia-cuda${PROJECT_VERSION_MAJOR})
set(glia_deb_tools_name glia-tools)

# --- libglia0's symbols file ------------------------------------------------------------------------
# Written when cpack runs (cmake/debian/symbols.cmake, CPACK_PROJECT_CONFIG_FILE below) from glia.h and
# abi/glia.symbols as they are then, so that editing glia.h does not reconfigure the build.
set(glia_deb_dir ${PROJECT_BINARY_DIR}/debian)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/debian/symbols.cmake)
set(CPACK_GLIA_SOURCE_DIR ${PROJECT_SOURCE_DIR})
set(CPACK_GLIA_VERSION ${PROJECT_VERSION})
set(CPACK_GLIA_SONAME libglia.so.${PROJECT_VERSION_MAJOR})
set(CPACK_GLIA_RUNTIME_PACKAGE ${glia_deb_runtime_name})
set(CPACK_GLIA_DEV_PACKAGE ${glia_deb_dev_name})
set(CPACK_GLIA_SYMBOLS_FILE ${glia_deb_dir}/symbols)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/CHANGELOG.md)

# --- /usr/share/doc/<package>: copyright, changelog.Debian.gz, changelog.gz (docs/CHANGELOG.md) ------
find_program(GLIA_GZIP gzip)
string(TIMESTAMP GLIA_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH when set
foreach(c IN LISTS glia_deb_components)
  set(GLIA_DEB_PACKAGE ${glia_deb_${c}_name})
  set(docs ${glia_deb_dir}/${GLIA_DEB_PACKAGE})
  set(GLIA_DEB_COPYRIGHT_COMMENT "")
  if(c STREQUAL "cuda")
    # cuda/CMakeLists.txt links NVIDIA's CUDA runtime statically into libglia_cuda.so.
    string(CONCAT GLIA_DEB_COPYRIGHT_COMMENT "\n .\n libglia_cuda.so contains NVIDIA's CUDA runtime library "
      "(libcudart_static.a),\n redistributed under the terms of the CUDA Toolkit End User License\n"
      " Agreement: https://docs.nvidia.com/cuda/eula/")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/copyright.in ${docs}/copyright @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${docs}/changelog.Debian @ONLY)
  set(doc_files ${docs}/copyright)
  if(GLIA_GZIP)
    # -n: no name or time stamp in the header, so the package is reproducible.
    execute_process(COMMAND ${GLIA_GZIP} -9nf ${docs}/changelog.Debian)
    execute_process(COMMAND ${GLIA_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/docs/CHANGELOG.md
      OUTPUT_FILE ${docs}/changelog.gz)
    list(APPEND doc_files ${docs}/changelog.Debian.gz ${docs}/changelog.gz)
  endif()
  install(FILES ${doc_files} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${GLIA_DEB_PACKAGE}
    COMPONENT ${c} EXCLUDE_FROM_ALL)
endforeach()

# --- CPack -----------------------------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME glia)
set(CPACK_PACKAGE_VENDOR glia)
set(CPACK_PACKAGE_CONTACT "${GLIA_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${glia_deb_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
# CPackDeb puts a non-default CPACK_PACKAGE_DESCRIPTION_SUMMARY (by default the project's
# DESCRIPTION) in front of every component's description; each package has its own summary below.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE ${GLIA_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SOURCE glia)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps on a program of glia-tools must find the libglia.so.0 it links (not installed yet); its
# Depends on libglia0 comes from CPACK_COMPONENT_TOOLS_DEPENDS.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/src)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(glia_deb_about
  "glia is a neural-network engine with a stable C ABI: tensors, automatic\n"
  "differentiation, modules, optimizers and checkpoints with the names,\n"
  "defaults and formulas of PyTorch, for C programs and for bindings.")
string(CONCAT CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "neural-network engine with a stable C ABI - shared library\n" ${glia_deb_about}
  "\n\nThis package contains the shared library. OpenBLAS, when installed, is\n"
  "loaded on the first large matrix product that needs it.")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
  "neural-network engine with a stable C ABI - development files\n" ${glia_deb_about}
  "\n\nThis package contains the C and C++ headers, the pkg-config file (glia)\n"
  "and the CMake package (find_package(glia), target glia::glia).")
string(CONCAT CPACK_DEBIAN_CUDA_DESCRIPTION
  "neural-network engine with a stable C ABI - CUDA backend\n" ${glia_deb_about}
  "\n\nThis package contains the CUDA backend, which libglia loads at run time\n"
  "to use NVIDIA GPUs; it needs the NVIDIA driver's libcuda.so.1.")
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION
  "neural-network engine with a stable C ABI - tools\n" ${glia_deb_about}
  "\n\nThis package contains glia's command-line programs.")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${glia_deb_runtime_name})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS libopenblas0)
# The libraries' packages run ldconfig through a dpkg trigger (lintian: lacks-ldconfig-trigger). CPackDeb
# would also write a postinst and a postrm that call ldconfig themselves (lintian: maintscript-calls-ldconfig)
# unless CONTROL_EXTRA names a postinst and a postrm: it names two that do not exist, which the DEB generator
# skips with a warning ("missing file: .../not-shipped/postinst"), so the packages have no maintainer scripts.
file(WRITE ${glia_deb_dir}/triggers "activate-noawait ldconfig\n")
set(glia_deb_ldconfig ${glia_deb_dir}/triggers ${glia_deb_dir}/not-shipped/postinst
  ${glia_deb_dir}/not-shipped/postrm)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${CPACK_GLIA_SYMBOLS_FILE} ${glia_deb_ldconfig})
set(CPACK_DEBIAN_DEV_PACKAGE_NAME ${glia_deb_dev_name})
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME ${glia_deb_cuda_name})
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_CUDA_PACKAGE_SUGGESTS libcuda1)
set(CPACK_DEBIAN_CUDA_PACKAGE_CONTROL_EXTRA ${glia_deb_ldconfig})
set(CPACK_COMPONENT_CUDA_DEPENDS runtime)
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ${glia_deb_tools_name})
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)

include(CPack)
