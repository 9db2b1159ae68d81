# The two commands of the README. Each installs what it is missing.
.PHONY: dev test

dev:
	./scripts/dev.sh

test:
	./scripts/test.sh
