"""Compiler command lines read into translation units: nvcc, hipcc, gcc, g++, clang."""

import shlex

from vado.build.cmdline import compiler_family, parse_command
from vado.build.model import IncludeKind, IncludePath, Language


def units(cmd, d="/p"):
    return parse_command(shlex.split(cmd), d)


def test_nvcc_keeps_what_compiles_and_drops_what_is_nvidias():
    (u,) = units("nvcc --threads=0 -t=0 --use_fast_math -std=c++17 -O3 "
                 "--generate-code arch=compute_80,code=[compute_80,sm_80] -DENABLE_BF16 k.cu -lcublas -o k")
    assert u.language is Language.CUDA and u.source == "/p/k.cu"
    assert u.flag_args() == ["-DENABLE_BF16", "-std=c++17", "-ffast-math", "-O3"]
    assert "--threads=0" in u.dropped and any(d.startswith("--generate-code") for d in u.dropped)


def test_nvcc_xcompiler_and_rdc():
    (u,) = units("nvcc -Xcompiler -fopenmp,-Wall -I inc -c k.cu -o k.o -rdc=true -x cu")
    assert u.flag_args() == ["-I/p/inc", "-fopenmp", "-Wall", "-fgpu-rdc"]


def test_c_sources_are_c_under_cc_and_cxx_under_gxx():
    (c,) = units("cc -O2 -fopenmp -DOMP a.c -lm -o a")
    (cxx,) = units("g++ -c a.c -o a.o")
    (hip_c,) = units("hipcc -c a.c -o a.o")
    (hip_cpp,) = units("hipcc --offload-arch=gfx942 -c a.cpp -o a.o")
    assert c.language is Language.C and c.flag_args() == ["-DOMP", "-O2", "-fopenmp"]
    assert cxx.language is Language.CXX and hip_c.language is Language.C and hip_cpp.language is Language.HIP
    assert "--offload-arch=gfx942" in hip_cpp.dropped


def test_include_kinds_order_and_forced_includes():
    (u,) = units("clang++ -Ib -isystem /s -iquote q -Ia -include pre.h -idirafter late -x c++ m.cc -MD -MF m.d -c")
    assert u.includes == (IncludePath("/p/b"), IncludePath("/s", IncludeKind.SYSTEM),
                          IncludePath("/p/q", IncludeKind.QUOTE), IncludePath("/p/a"),
                          IncludePath("/p/late", IncludeKind.AFTER))
    assert u.flag_args()[:4] == ["-iquote", "/p/q", "-I/p/b", "-I/p/a"]
    assert u.forced_includes == ("/p/pre.h",) and "-MD" in u.dropped


def test_gccs_own_header_directory_is_dropped_clang_has_its_own():
    # tiny-cuda-nn sets CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES to g++'s implicit directories: its compile
    # commands name GCC's intrinsics headers, whose GCC builtins clang (verify's hipcc) does not have.
    (u,) = units("/usr/bin/c++ -I inc -isystem /usr/include/c++/16 -isystem /usr/lib/gcc/x86_64-linux-gnu/16/include "
                 "-I/usr/lib64/gcc/x86_64-suse-linux/13/include-fixed -isystem /usr/include -c a.cpp -o a.o")
    assert [i.path for i in u.includes] == ["/p/inc", "/usr/include/c++/16", "/usr/include"]
    assert "-isystem/usr/lib/gcc/x86_64-linux-gnu/16/include" in u.dropped
    assert "-I/usr/lib64/gcc/x86_64-suse-linux/13/include-fixed" in u.dropped
    # Not GCC's own directory: a project folder named gcc, GCC's plugin headers, libstdc++.
    (v,) = units("g++ -I /src/gcc/include -I /usr/lib/gcc/x86_64-linux-gnu/16/plugin/include -c b.cpp")
    assert [i.path for i in v.includes] == ["/src/gcc/include", "/usr/lib/gcc/x86_64-linux-gnu/16/plugin/include"]


def test_macros_keep_their_order():
    (u,) = units("gcc -DA=1 -UA -D B -c x.c")
    assert u.macros == (("D", "A=1"), ("U", "A"), ("D", "B")) and u.defines == ("A=1", "B") and u.undefines == ("A",)


def test_not_compilers_and_link_only_commands():
    assert units("ld -o x a.o") == [] and units("echo nvcc k.cu") == [] and units("nvcc a.o b.o -o prog") == []
    assert units("ccache gcc -c a.c")[0].language is Language.C
    assert compiler_family("/usr/bin/x86_64-linux-gnu-g++-12") == "cxx" and compiler_family("clang-18") == "cc"


def test_several_sources_one_command():
    us = units("nvcc -DX a.cu b.cpp -o p")
    assert [(u.source, u.language) for u in us] == [("/p/a.cu", Language.CUDA), ("/p/b.cpp", Language.CXX)]
    assert all(u.defines == ("X",) for u in us)
