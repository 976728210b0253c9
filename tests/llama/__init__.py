"""A real llama.cpp server (llama-cpp-python) for the tests of tests/test_llama_server.py and the
benchmark bench/bench_local_model.py: scripts/setup-llama installs it and the model."""
