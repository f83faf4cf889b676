# The C examples run as tests: each exits non-zero when its result is wrong
# (examples/c/mlp.c must reach 95% accuracy), so they cannot rot.
foreach(example tensors mlp checkpoint)
  if(TARGET example_${example})
    add_test(NAME example.${example} COMMAND example_${example})
    set_tests_properties(example.${example} PROPERTIES LABELS examples TIMEOUT 120)
  endif()
endforeach()
