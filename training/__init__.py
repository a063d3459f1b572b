"""Recipes that rebuild the shipped model files, on the product's own encoder."""
