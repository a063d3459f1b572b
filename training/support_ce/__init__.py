"""The support cross-encoder recipe: FactCC-style made pairs and real attribution data, MiniLM fine-tuned on CPU."""
