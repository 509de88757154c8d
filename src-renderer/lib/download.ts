/** Saves text as a file through the browser's download (the Electron shell saves it to Downloads). */
export function downloadText(filename: string, mimeType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once started; free the blob on the next task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
