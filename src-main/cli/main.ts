process.stdout.write('tidy: coming soon\n');
