# The C examples run as tests: each exits non-zero when its result is wrong
# (examples/c/mlp.c must reach 95% accuracy), so they cannot rot.
foreach(example tensors mlp checkpoint char_lstm)
  if(TARGET example_${example})
    add_test(NAME example.${example} COMMAND example_${example})
    set_tests_properties(example.${example} PROPERTIES LABELS examples TIMEOUT 120)
  endif()
endforeach()
# examples/c/checkpoint.c as a listing tool, on files PyTorch 1.13 wrote (zip and legacy format).
if(TARGET example_checkpoint)
  add_test(NAME example.checkpoint_list COMMAND example_checkpoint
    ${PROJECT_SOURCE_DIR}/tests/golden/checkpoints/torch/module_zip.pt
    ${PROJECT_SOURCE_DIR}/tests/golden/checkpoints/torch/module_legacy.pt)
  set_tests_properties(example.checkpoint_list PROPERTIES LABELS examples TIMEOUT 60
    PASS_REGULAR_EXPRESSION "module_legacy.pt: 9 tensors.*running_mean")
endif()
# examples/c/fashion_mnist.c, the main demo: its own file.
include(${CMAKE_CURRENT_LIST_DIR}/fashion_mnist.cmake)
