import { readFileSync } from 'node:fs';
import { authkoaShare } from './profile.js';
for (const f of process.argv.slice(2)) console.log(f, (authkoaShare(JSON.parse(readFileSync(f, 'utf8')), 'file:///work/main/lib/').share * 100).toFixed(2), '%');
