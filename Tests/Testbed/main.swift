// replaced by main.swift once the Daemon runner exists
