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
