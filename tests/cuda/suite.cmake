# The CUDA backend's host logic (cuda/caching_allocator.cpp and the __host__ __device__ headers of cuda/), built
# as plain C++ and tested on the CPU: on every machine, with or without the CUDA toolkit or a GPU.
add_executable(cuda_host_tests ${CMAKE_CURRENT_LIST_DIR}/caching_allocator_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/philox_test.cpp ${CMAKE_CURRENT_LIST_DIR}/welford_test.cpp
  ${PROJECT_SOURCE_DIR}/cuda/caching_allocator.cpp)
target_link_libraries(cuda_host_tests PRIVATE GTest::gtest_main GTest::gtest Threads::Threads)
target_include_directories(cuda_host_tests PRIVATE ${PROJECT_SOURCE_DIR}/cuda)
target_compile_options(cuda_host_tests PRIVATE ${GLIA_WARNINGS})
if(GLIA_HAVE_CUDA)
  # Against curand's own Philox, compiled for the host from the toolkit's headers (header-only: no GPU, no link).
  target_sources(cuda_host_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/philox_curand_test.cpp)
  target_include_directories(cuda_host_tests SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
endif()
gtest_discover_tests(cuda_host_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cuda_host)

# The CUDA backend through the C API: on a machine without a GPU its status must
# say why (and device tensors fail cleanly); with a GPU, tensors move to it and
# back. The GPU tests skip themselves (GTEST_SKIP, reported as skipped) without one.
if(TARGET glia_cuda)
  add_executable(cuda_tests ${CMAKE_CURRENT_LIST_DIR}/cuda_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/test_support.cpp)
  target_link_libraries(cuda_tests PRIVATE glia GTest::gtest_main GTest::gtest)
  target_include_directories(cuda_tests PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(cuda_tests PRIVATE GLIA_TEST_DATA_DIR="${GLIA_TEST_DATA_DIR}")
  add_dependencies(cuda_tests glia_cuda)
  gtest_discover_tests(cuda_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cuda)
endif()
