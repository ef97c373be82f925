/** The console's entry: its stylesheet and the app, rendered into the page. */
import { render } from 'preact';
import './styles.css';
import { App } from './app';

const host = document.getElementById('app');
if (host) render(<App />, host);
