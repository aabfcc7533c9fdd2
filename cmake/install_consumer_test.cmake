# ctest install_consumer: installs the built library into a scratch prefix,
# checks that the install holds headers only under include/invidx/, then
# configures and builds examples/ against it as an outside program would.
# Arguments: -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR=
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE result OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${result}")
endif()
file(GLOB top_level RELATIVE "${WORK_DIR}/prefix/include" "${WORK_DIR}/prefix/include/*")
if(NOT top_level STREQUAL "invidx")
  message(FATAL_ERROR "the install's include/ holds '${top_level}'; only invidx/ belongs there")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples" -B "${WORK_DIR}/build"
                        -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "configuring examples/ against the installed package failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "building examples/ against the installed package failed")
endif()
