# The CUDA backend's host logic (cuda/caching_allocator.cpp and the __host__ __device__ headers of cuda/), built
# as plain C++ and tested on the CPU: on every machine, with or without the CUDA toolkit or a GPU.
add_executable(cuda_host_tests ${CMAKE_CURRENT_LIST_DIR}/caching_allocator_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/philox_test.cpp ${CMAKE_CURRENT_LIST_DIR}/welford_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_ops_test.cpp ${CMAKE_CURRENT_LIST_DIR}/loss_ops_test.cpp
  ${PROJECT_SOURCE_DIR}/cuda/caching_allocator.cpp)
# The pooling and normalisation math shared by the CPU and CUDA kernels (src/core/pool_math.h, norm_math.h).
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/pool_norm_math_test.cpp)
# The optimizers' per-element updates (cuda/optim_ops.h, shared with src/ops/cpu/optim*.cpp).
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/optim_ops_test.cpp)
# cuda/pad_index.h and cuda/arg_extremum.h (index.cu's padding maps, reduce_extra.cu's argmax step; h-cuidx)
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/pad_index_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/arg_extremum_test.cpp)
# cuda/algo_cache.h (conv.cpp's cache of cuDNN's heuristics, Note [cuDNN algorithm cache]).
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/algo_cache_test.cpp)
# The sort keys and selection rules shared by the CPU and CUDA kernels (src/core/sort_math.h; h-cusort).
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sort_math_test.cpp)
# The upsampling math shared by the CPU and CUDA kernels (src/core/resample_math.h; h-cupool).
target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/resample_math_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fold_index_test.cpp)  # cuda/fold_index.h (im2col_nd / col2im_nd on the GPU)
target_link_libraries(cuda_host_tests PRIVATE GTest::gtest_main GTest::gtest Threads::Threads)
# src/ for the core's half.h and dtype.h (header-only parts), the references of elementwise_ops_test.cpp.
target_include_directories(cuda_host_tests PRIVATE ${PROJECT_SOURCE_DIR}/cuda ${PROJECT_SOURCE_DIR}/src)
target_compile_options(cuda_host_tests PRIVATE ${GLIA_WARNINGS})
if(GLIA_HAVE_CUDA)
  # Against curand's own Philox, compiled for the host from the toolkit's headers (header-only: no GPU, no link).
  target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/philox_curand_test.cpp)
  target_include_directories(cuda_host_tests SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
endif()
gtest_discover_tests(cuda_host_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cuda_host)

find_package(Python3 REQUIRED COMPONENTS Interpreter)
if(GLIA_HAVE_CUDA)
  # The same headers as device code: nvcc compiles host_device_check.cu for each of GLIA_CUDA_ARCHITECTURES
  # (CMake's spelling: N-virtual is PTX, N-real SASS, N both), and the fatbinary must hold exactly those.
  set(gencode)
  foreach(arch ${GLIA_CUDA_ARCHITECTURES})
    string(REGEX MATCH "^[0-9]+" sm "${arch}")
    if(arch MATCHES "-virtual$")
      list(APPEND gencode -gencode arch=compute_${sm},code=compute_${sm})
    elseif(arch MATCHES "-real$")
      list(APPEND gencode -gencode arch=compute_${sm},code=sm_${sm})
    else()
      list(APPEND gencode -gencode arch=compute_${sm},code=[sm_${sm},compute_${sm}])
    endif()
  endforeach()
  set(check_obj ${CMAKE_CURRENT_BINARY_DIR}/host_device_check.o)
  add_custom_command(OUTPUT ${check_obj}
    COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -std=c++17 -Werror all-warnings ${gencode} -I${PROJECT_SOURCE_DIR}/cuda
      -c ${CMAKE_CURRENT_LIST_DIR}/host_device_check.cu -o ${check_obj}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/host_device_check.cu ${PROJECT_SOURCE_DIR}/cuda/host_device.h
      ${PROJECT_SOURCE_DIR}/cuda/philox.h ${PROJECT_SOURCE_DIR}/cuda/welford.h ${PROJECT_SOURCE_DIR}/cuda/dtypes.h
      ${PROJECT_SOURCE_DIR}/cuda/elementwise_ops.h
    COMMENT "nvcc: cuda/'s host and device headers for ${GLIA_CUDA_ARCHITECTURES}" VERBATIM)
  set(parity_exe ${CMAKE_CURRENT_BINARY_DIR}/cuda_device_parity)
  add_custom_command(OUTPUT ${parity_exe}
    COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} ${gencode} ${check_obj} -o ${parity_exe}
    DEPENDS ${check_obj} COMMENT "nvcc: linking cuda_device_parity" VERBATIM)
  add_custom_target(cuda_host_device_check ALL DEPENDS ${check_obj} ${parity_exe})
  # On a GPU: the kernels against the same functions on the host (exit status 77, skipped, without one).
  add_test(NAME cuda.device_parity COMMAND ${parity_exe})
  set_tests_properties(cuda.device_parity PROPERTIES LABELS cuda SKIP_RETURN_CODE 77)
  add_test(NAME cuda.device_code_architectures
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_backend_library.py
      --device-code ${check_obj} --architectures "${GLIA_CUDA_ARCHITECTURES}")
  set_tests_properties(cuda.device_code_architectures PROPERTIES LABELS cuda_host)
endif()

# The CUDA backend through the C API: on a machine without a GPU its status must
# say why (and device tensors fail cleanly); with a GPU, tensors move to it and
# back. The GPU tests skip themselves (GTEST_SKIP, reported as skipped) without one.
if(TARGET glia_cuda)
  add_executable(cuda_tests ${CMAKE_CURRENT_LIST_DIR}/cuda_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
  # The loss and embedding kernels (h-culoss).
  target_sources(cuda_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cuda_loss_test.cpp)
  # Every optimizer's step on cuda:0 against the CPU's, bit for bit (cuda/optim.cu).
  target_sources(cuda_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/optim_cuda_test.cpp)
  # sort.cu, search.cu, layout_extra.cu against the CPU on large inputs (h-cusort)
  target_sources(cuda_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cuda_sort_test.cpp)
  # The special functions, elementwise math and activations of h-cuspecial: what the golden cases do not run.
  target_sources(cuda_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cuda_special_test.cpp)
  target_link_libraries(cuda_tests PRIVATE glia GTest::gtest_main GTest::gtest)
  target_include_directories(cuda_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(cuda_tests PRIVATE GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
  add_dependencies(cuda_tests glia_cuda)
  gtest_discover_tests(cuda_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cuda)
  # The library itself: exports, dependencies (cudart static, cuBLAS through the loader), RUNPATH, SONAME, and
  # device code for exactly GLIA_CUDA_ARCHITECTURES.
  add_test(NAME cuda.backend_library
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_backend_library.py
      --library $<TARGET_FILE:glia_cuda> --device-code $<TARGET_FILE:glia_cuda>
      --architectures "${GLIA_CUDA_ARCHITECTURES}" --nm ${CMAKE_NM} --readelf ${CMAKE_READELF})
  set_tests_properties(cuda.backend_library PROPERTIES LABELS cuda_host)
  # cuDNN's load-time checks (cuda/cudnn_check.cpp) with the cuDNN the backend links: no GPU needed.
  add_executable(cudnn_check_tests ${CMAKE_CURRENT_LIST_DIR}/cudnn_check_test.cpp
    ${PROJECT_SOURCE_DIR}/cuda/cudnn_check.cpp)
  target_include_directories(cudnn_check_tests PRIVATE ${PROJECT_SOURCE_DIR}/cuda)
  if(GLIA_CUDNN_LIBRARY)
    target_link_libraries(cudnn_check_tests PRIVATE ${GLIA_CUDNN_LIBRARY})
    target_include_directories(cudnn_check_tests SYSTEM BEFORE PRIVATE ${GLIA_CUDNN_INCLUDE_DIR})
  else()
    target_link_libraries(cudnn_check_tests PRIVATE CUDA::cudnn)
  endif()
  target_link_libraries(cudnn_check_tests PRIVATE GTest::gtest_main GTest::gtest ${CMAKE_DL_LIBS})
  target_compile_options(cudnn_check_tests PRIVATE ${GLIA_WARNINGS})
  gtest_discover_tests(cudnn_check_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cuda_host)
endif()

# Training parity (tests/cuda/parity_test.cpp): the W3 MLP and the W4 LeNet, 20 steps on the CPU and on cuda:0
# from the same weights, losses and parameters within a float32 tolerance. Label cuda_parity: run by
# scripts/gpu-check.sh's parity-cuda stage; skipped (and says so) without a GPU.
if(TARGET glia_cuda)
  add_executable(cuda_parity_tests ${CMAKE_CURRENT_LIST_DIR}/parity_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
  target_link_libraries(cuda_parity_tests PRIVATE glia GTest::gtest_main GTest::gtest)
  target_include_directories(cuda_parity_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(cuda_parity_tests PRIVATE GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
  target_compile_options(cuda_parity_tests PRIVATE ${GLIA_WARNINGS})
  add_dependencies(cuda_parity_tests glia_cuda)
  gtest_discover_tests(cuda_parity_tests DISCOVERY_TIMEOUT 60 TEST_PREFIX cuda. PROPERTIES LABELS cuda_parity)
endif()
