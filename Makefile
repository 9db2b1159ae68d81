# The two commands of the README. Each installs what it is missing.
.PHONY: dev test test-models

dev:
	./scripts/dev.sh

test:
	./scripts/test.sh

# Not one of the two: the model adapters against a real model server (README, Models).
test-models:
	./scripts/test-models.sh
