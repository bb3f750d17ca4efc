# xcc's CMake package: `find_package(xcc)` then
#
#   xcc_add_model(TARGET name MODEL model.onnx [NAME c_prefix] [TARGET_ARCH x86_64|aarch64]
#                 [OPTIONS --dim seq=1..512 -O3 ...] [DEPENDS file ...])
#
# compiles the model at build time into lib<NAME>.a and <NAME>.h (NAME defaults to TARGET) and
# makes `name` a static library target that carries the header's directory and the libraries
# the model needs (-lm, threads). The model is recompiled when the model file, xcc itself or a
# file in DEPENDS (external weights) changes. When CMake cross-compiles, TARGET_ARCH defaults to
# CMAKE_SYSTEM_PROCESSOR; otherwise xcc's default target. Installed by scripts/install.sh as
# PREFIX/lib/cmake/xcc/.

get_filename_component(_xcc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
find_program(XCC_EXECUTABLE xcc HINTS "${_xcc_prefix}/bin" DOC "the xcc compiler")
if(NOT XCC_EXECUTABLE)
  set(xcc_FOUND FALSE)
  set(xcc_NOT_FOUND_MESSAGE "xcc was not found in ${_xcc_prefix}/bin or on PATH")
  return()
endif()
find_package(Threads REQUIRED)

# The xcc target for a CMake system processor name.
function(_xcc_arch_of processor out)
  string(TOLOWER "${processor}" p)
  if(p MATCHES "^(aarch64|arm64)$")
    set(${out} aarch64 PARENT_SCOPE)
  elseif(p MATCHES "^(x86_64|amd64|x64)$")
    set(${out} x86_64 PARENT_SCOPE)
  else()
    message(FATAL_ERROR "xcc_add_model: no xcc target for the processor '${processor}'; give TARGET_ARCH")
  endif()
endfunction()

function(xcc_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;MODEL;NAME;TARGET_ARCH" "OPTIONS;DEPENDS")
  if(NOT ARG_TARGET OR NOT ARG_MODEL)
    message(FATAL_ERROR "xcc_add_model: TARGET and MODEL are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "xcc_add_model: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(name "${ARG_NAME}")
  if(NOT name)
    set(name "${ARG_TARGET}")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(arch "${ARG_TARGET_ARCH}")
  if(NOT arch AND CMAKE_CROSSCOMPILING)
    _xcc_arch_of("${CMAKE_SYSTEM_PROCESSOR}" arch)
  endif()
  set(target_flag)
  if(arch)
    set(target_flag --target ${arch})
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/xcc/${ARG_TARGET}")
  set(library "${dir}/lib${name}.a")
  set(header "${dir}/${name}.h")
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${library}" "${header}"
    COMMAND "${XCC_EXECUTABLE}" "${model}" --name ${name} ${target_flag} ${ARG_OPTIONS} -o "${library}"
    DEPENDS "${model}" "${XCC_EXECUTABLE}" ${ARG_DEPENDS}
    COMMENT "xcc: compiling ${ARG_MODEL} into lib${name}.a"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_xcc DEPENDS "${library}" "${header}")
  add_library(${ARG_TARGET} STATIC IMPORTED GLOBAL)
  set_target_properties(${ARG_TARGET} PROPERTIES
    IMPORTED_LOCATION "${library}"
    INTERFACE_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_LINK_LIBRARIES "m;Threads::Threads")
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_xcc)
endfunction()
