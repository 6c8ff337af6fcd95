"""Experimental module."""
