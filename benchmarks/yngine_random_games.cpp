// Full random games per second of the public C++ YINSH engine temhelk/yngine, one thread.
//
// Plays uniformly random legal games from the empty board to the end (yngine's own
// BoardState::playout loop: generate_moves, MoveList::get_random, apply_move), for
// --seconds after a warm-up, and prints decisions and games per second; the last number printed
// is the games per second (what benchmarks/bench_games.py reads). ``--clock cpu`` (the default)
// counts this process's CPU time, as bench_games.py's workers do (steady on a shared machine);
// ``--clock wall`` wall-clock time.
//
// Build (yngine's CMakeLists: C++20, no extensions, link-time optimisation outside Debug;
// Release adds -O3 -DNDEBUG). yngine needs CMake >= 3.30 (pip install cmake) and its Xoshiro-cpp
// submodule; with GCC 12's libstdc++ its sources miss two includes (<bit>, <algorithm>: newer
// compilers bring them in through other headers), which -include supplies without editing them:
//
//   git clone --recursive https://github.com/temhelk/yngine /tmp/yngine
//   cmake -S /tmp/yngine -B /tmp/yngine/build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
//       "-DCMAKE_CXX_FLAGS=-include bit -include algorithm"
//   cmake --build /tmp/yngine/build -j 2           # generates yngine/tables.hpp, builds libYngine.a
//   g++ -std=c++20 -O3 -DNDEBUG -flto -include bit -include algorithm -I/tmp/yngine \
//       -I/tmp/yngine/extern/Xoshiro-cpp benchmarks/yngine_random_games.cpp \
//       /tmp/yngine/build/yngine/libYngine.a -o /tmp/yngine/random_games
//   /tmp/yngine/random_games --seconds 3
//   python benchmarks/bench_games.py --yngine /tmp/yngine/random_games
//
// A decision of yngine is not one of ours (a ring move is one move there, two decisions here:
// the ring, then its destination), so compare games per second.

#include <yngine/board_state.hpp>
#include <yngine/moves.hpp>

#include <XoshiroCpp.hpp>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// One random game from the empty board to the end; returns the decisions played.
long play_one(XoshiroCpp::Xoshiro256StarStar& prng, Yngine::MoveList& move_list, int& result) {
    Yngine::BoardState board{};
    long decisions = 0;
    while (board.get_next_action() != Yngine::NextAction::Done) {
        board.generate_moves(move_list);
        board.apply_move(move_list.get_random(prng));
        move_list.reset();
        decisions++;
    }
    result = static_cast<int>(board.game_result());
    return decisions;
}

double now_seconds(bool cpu) {
    if (cpu) {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 3.0;
    unsigned long long seed = 0;
    bool cpu = true;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--seconds") == 0) {
            seconds = std::atof(argv[i + 1]);
        } else if (std::strcmp(argv[i], "--seed") == 0) {
            seed = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (std::strcmp(argv[i], "--clock") == 0 && (std::strcmp(argv[i + 1], "cpu") == 0 ||
                                                            std::strcmp(argv[i + 1], "wall") == 0)) {
            cpu = std::strcmp(argv[i + 1], "cpu") == 0;
        } else {
            std::fprintf(stderr, "usage: %s [--seconds S] [--seed N] [--clock cpu|wall]\n", argv[0]);
            return 2;
        }
    }
    XoshiroCpp::Xoshiro256StarStar prng{seed};
    Yngine::MoveList move_list{};
    int result = 0;
    long results[3] = {0, 0, 0};
    for (int i = 0; i < 200; i++) {  // warm-up
        play_one(prng, move_list, result);
    }
    const double start = now_seconds(cpu);
    long games = 0;
    long decisions = 0;
    double elapsed = 0.0;
    do {
        for (int i = 0; i < 100; i++) {
            decisions += play_one(prng, move_list, result);
            results[result % 3]++;
            games++;
        }
        elapsed = now_seconds(cpu) - start;
    } while (elapsed < seconds);
    std::printf("games %ld, decisions %ld, results by kind %ld/%ld/%ld, %.3f s\n", games, decisions, results[0],
                results[1], results[2], elapsed);
    std::printf("decisions per second %.0f\n", decisions / elapsed);
    std::printf("games per second %.1f\n", games / elapsed);
    return 0;
}
